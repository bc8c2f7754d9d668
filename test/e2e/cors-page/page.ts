// The script of a page served from another origin than Vexil (test/e2e/cors.test.ts bundles it with
// esbuild): it evaluates one flag through OpenFeature's web SDK with the OFREP web provider, and through
// Flipt's browser client (its WASM engine is inlined in the package, so nothing is fetched but the API),
// then reads the headers CORS must expose. `?api=` names the server, `?token=` a client token.

import { FliptEvaluationClient } from '@flipt-io/flipt-client-browser';
import { OFREPWebProvider } from '@openfeature/ofrep-web-provider';
import { OpenFeature } from '@openfeature/web-sdk';

const params = new URLSearchParams(location.search);
const api = params.get('api') ?? '';
const token = params.get('token') ?? '';
const FLAG = 'cors-flag';

type Outcome = Record<string, unknown>;

async function viaOfrep(): Promise<Outcome> {
  const provider = new OFREPWebProvider({
    baseUrl: api,
    // As a list: this version of the provider merges header lists only.
    headers: [
      ['Authorization', `Bearer ${token}`],
      ['X-Service-Namespace', 'default'],
    ],
  });
  try {
    await OpenFeature.setProviderAndWait(provider, { targetingKey: 'user-1' });
  } catch (err) {
    return { error: String(err) };
  }
  const details = OpenFeature.getClient().getBooleanDetails(FLAG, false);
  return { value: details.value, reason: details.reason, errorCode: details.errorCode ?? null };
}

async function viaFliptClient(): Promise<Outcome> {
  try {
    const client = await FliptEvaluationClient.init('default', { url: api, authentication: { clientToken: token } });
    const result = client.evaluateBoolean(FLAG, 'user-1', {});
    return { value: result.enabled, reason: result.reason };
  } catch (err) {
    return { error: String(err) };
  }
}

async function exposedHeaders(): Promise<Outcome> {
  try {
    const res = await fetch(`${api}/ofrep/v1/evaluate/flags`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ context: { targetingKey: 'user-1' } }),
    });
    return { status: res.status, etag: res.headers.get('etag'), revision: res.headers.get('x-vexil-revision') };
  } catch (err) {
    return { error: String(err) };
  }
}

const results = { ofrep: await viaOfrep(), flipt: await viaFliptClient(), exposed: await exposedHeaders() };
(window as unknown as { results: unknown }).results = results;
document.title = 'done';
