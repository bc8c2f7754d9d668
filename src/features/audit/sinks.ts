// Where audit events go, as Flipt sends them: the log sink (one JSON line per event, to a file or the
// log), the webhook (the event's JSON, signed with X-Flipt-Webhook-Signature when a secret is set) and
// webhook templates (a body rendered from a Go template, POSTed to the template's url). A sink reports
// what became of one event; the delivery loop (delivery.ts) retries, orders and records progress.

import { createHmac } from 'node:crypto';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { type AuditEvent, EVENT_FIELDS, logLineOf, templateDataOf } from './events.js';
import { goJson, parseTemplate, renderTemplate, type Template } from './go-template.js';

/**
 * delivered: the receiver has it. retry: try again later (network error, 429, 5xx). rejected: the
 * receiver refused it for good (another 4xx, 501); invalid: the template did not render to JSON. The
 * last two are logged and passed, as Flipt passes them, so one bad event never blocks the ones after.
 */
export type DeliveryResult = 'delivered' | 'retry' | 'rejected' | 'invalid';

export interface AuditSink {
  /** Names the sink in the delivery state, the lease and the metrics (e.g. `webhook.templates[0]`). */
  readonly name: string;
  /** Counted as webhook deliveries (vexil_audit_webhook_deliveries_total). */
  readonly webhook: boolean;
  deliver(event: AuditEvent, signal: AbortSignal): Promise<DeliveryResult>;
  close(): Promise<void>;
}

export const SIGNATURE_HEADER = 'X-Flipt-Webhook-Signature';

/** One attempt never takes longer than this; the lease is renewed meanwhile, so it may be long. */
const REQUEST_TIMEOUT_MS = 30_000;

/** retryablehttp's default policy, which Flipt's webhook clients use. */
function resultOfStatus(status: number): DeliveryResult {
  if (status === 429 || (status >= 500 && status !== 501)) return 'retry';
  if (status >= 400) return 'rejected';
  return 'delivered';
}

async function post(
  url: string,
  body: string,
  headers: Headers,
  signal: AbortSignal,
  logger: Logger,
  sink: string,
): Promise<DeliveryResult> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      body,
      headers,
      signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
    });
    await response.arrayBuffer().catch(() => undefined);
    const result = resultOfStatus(response.status);
    if (result !== 'delivered') logger.warn({ sink, status: response.status }, 'audit webhook answered with an error');
    return result;
  } catch (err) {
    if (signal.aborted) return 'retry';
    logger.warn({ sink, error: (err as Error).cause ?? (err as Error).message }, 'audit webhook not reachable');
    return 'retry';
  }
}

export class WebhookSink implements AuditSink {
  readonly name = 'webhook';
  readonly webhook = true;

  constructor(
    private readonly url: string,
    private readonly signingSecret: string,
    private readonly logger: Logger,
  ) {}

  deliver(event: AuditEvent, signal: AbortSignal): Promise<DeliveryResult> {
    const body = goJson(event);
    const headers = new Headers({ 'Content-Type': 'application/json' });
    if (this.signingSecret !== '') {
      headers.set(SIGNATURE_HEADER, createHmac('sha256', this.signingSecret).update(body).digest('hex'));
    }
    return post(this.url, body, headers, signal, this.logger, this.name);
  }

  async close(): Promise<void> {}
}

export class TemplateSink implements AuditSink {
  readonly webhook = true;
  readonly #template: Template;

  /** Throws a TemplateError when the body is not a template Vexil can run. */
  constructor(
    readonly name: string,
    private readonly url: string,
    body: string,
    private readonly headers: Readonly<Record<string, string>>,
    private readonly logger: Logger,
  ) {
    this.#template = parseTemplate(body, EVENT_FIELDS);
  }

  async deliver(event: AuditEvent, signal: AbortSignal): Promise<DeliveryResult> {
    let body: string;
    try {
      body = renderTemplate(this.#template, templateDataOf(event));
      JSON.parse(body);
    } catch (err) {
      this.logger.error({ sink: this.name, error: (err as Error).message }, 'audit template did not render to JSON');
      return 'invalid';
    }
    const headers = new Headers();
    for (const [key, value] of Object.entries(this.headers)) headers.append(key, value);
    if (!(headers.get('content-type') ?? '').startsWith('application/json')) {
      headers.append('Content-Type', 'application/json');
    }
    return post(this.url, body, headers, signal, this.logger, this.name);
  }

  async close(): Promise<void> {}
}

/**
 * Flipt's log sink: with a file, one JSON object per line appended to it; without, one `AUDIT` line per
 * event in the log (at info whatever log.level is, so events are not filtered away).
 */
export class LogSink implements AuditSink {
  readonly name = 'log';
  readonly webhook = false;
  #file: Promise<import('node:fs/promises').FileHandle> | undefined;
  readonly #auditLogger: Logger;

  constructor(
    private readonly path: string,
    logger: Logger,
  ) {
    this.#auditLogger = logger.child({}, { level: 'info' });
  }

  /** Opens (creating its folder) the file now, so a path that cannot be written stops the start. */
  async open(): Promise<void> {
    if (this.path === '') return;
    this.#file = mkdir(dirname(this.path), { recursive: true }).then(() => open(this.path, 'a'));
    await this.#file;
  }

  async deliver(event: AuditEvent): Promise<DeliveryResult> {
    const line = logLineOf(event);
    if (!this.#file) {
      this.#auditLogger.info(line, 'AUDIT');
      return 'delivered';
    }
    const file = await this.#file;
    await file.appendFile(`${goJson(line)}\n`);
    return 'delivered';
  }

  async close(): Promise<void> {
    const file = await this.#file?.catch(() => undefined);
    await file?.close();
  }
}
