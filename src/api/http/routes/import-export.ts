// Flipt's document format over HTTP (issue 26): GET /api/v1/namespaces/{ns}/export (`?all=true` for
// every namespace the token may see) and POST /api/v1/import, both management routes (authenticated;
// the import refused on the read tier and on read-only storage).
//
// The import takes its body as text — YAML or JSON by Content-Type, sniffed when the type says
// neither — so it is registered in a scope of its own whose only body parser keeps the text: the app's
// JSON parser stays as it is for every other route.

import Type from 'typebox';
import type { Access } from '../../../auth/access.js';
import { authorize, namespacesVisibleTo, roleRefusal } from '../../../auth/authorize.js';
import { holdsRoleEverywhere } from '../../../auth/roles/roles.js';
import type { Authentication } from '../../../domain/authentication.js';
import { InvalidArgumentError, NotFoundError } from '../../../domain/errors.js';
import { namespaceKeyOrDefault } from '../../../domain/namespace-key.js';
import { ALL_NAMESPACES } from '../../../domain/roles.js';
import { withLine } from '../../../services/documents/error-line.js';
import type { DocumentFormat } from '../../../services/documents/parse.js';
import { sniffFormat } from '../../../services/documents/parse.js';
import { MAX_IMPORT_BYTES } from '../../../services/documents/parse-off-thread.js';
import type { NamespaceService } from '../../../services/namespaces.js';
import type { HttpApp } from '../http-app.js';
import { errorResponses } from '../schemas/common.js';
import type { RouteDeps } from './deps.js';

const tags = ['import-export'];

/** Bodies of an import may be large (a 10,000-flag document is about 10 MB of YAML): the import's own limit. */
export const IMPORT_BODY_LIMIT = MAX_IMPORT_BYTES;

/**
 * An import creates the namespaces its documents name that do not exist yet, which is making a namespace:
 * for a caller with roles that needs admin on every namespace, as `POST /api/v1/namespaces` does. Callers
 * without roles keep what they could do before roles.
 */
async function checkCreatesNamespaces(
  caller: Authentication | null,
  docs: readonly { content: { namespace: { key: string } } }[],
  namespaces: NamespaceService,
): Promise<void> {
  if (caller === null || caller.roles === undefined || holdsRoleEverywhere(caller.roles, 'admin')) return;
  for (const key of new Set(docs.map((doc) => namespaceKeyOrDefault(doc.content.namespace.key)))) {
    const exists = await namespaces.get(key).then(
      () => true,
      (err: unknown) => {
        if (err instanceof NotFoundError) return false;
        throw err;
      },
    );
    if (!exists) throw roleRefusal('admin', ALL_NAMESPACES);
  }
}

/**
 * An import addresses the namespace its query names (`namespace_key`, empty meaning `default`), which
 * authorization checks before the body is read. What the document holds is known only once it is
 * parsed: the handler then asks authorize again for the namespaces the documents touch (`items`), or
 * for every namespace (`all`) when it drops them all.
 */
const IMPORT_ACCESS: Access = { resource: 'document', action: 'import', namespace: 'request' };
const IMPORT_DOCUMENTS: Access = { ...IMPORT_ACCESS, namespace: 'items' };
const IMPORT_DROPPING: Access = { ...IMPORT_ACCESS, namespace: 'all' };

const YAML_TYPES = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml']);

function flag(value: string | undefined): boolean {
  return value === 'true' || value === '1' || value === '';
}

function formatOfContentType(contentType: string | undefined, text: string): DocumentFormat {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (YAML_TYPES.has(type)) return 'yaml';
  return sniffFormat(text);
}

const ImportEntrySchema = Type.Object({
  namespace: Type.String(),
  type: Type.String(),
  key: Type.String(),
});

const ImportResultSchema = Type.Object({
  created: Type.Array(ImportEntrySchema),
  skipped: Type.Array(ImportEntrySchema),
  dropped: Type.Array(ImportEntrySchema),
});

const ImportQuerystring = Type.Object({
  skip_existing: Type.Optional(Type.String()),
  skipExisting: Type.Optional(Type.String()),
  drop: Type.Optional(Type.String()),
  dry_run: Type.Optional(Type.String()),
  dryRun: Type.Optional(Type.String()),
  namespace_key: Type.Optional(Type.String()),
  namespaceKey: Type.Optional(Type.String()),
});

const ExportQuerystring = Type.Object({
  all: Type.Optional(Type.String()),
  format: Type.Optional(Type.Union([Type.Literal('yaml'), Type.Literal('json')])),
  sort_by_key: Type.Optional(Type.String()),
  sortByKey: Type.Optional(Type.String()),
  /** Head the text with the `# exported by …` line and a blank line, as a file (the dashboard's download). */
  header: Type.Optional(Type.String()),
});

export async function importExportRoutes(app: HttpApp, { services }: RouteDeps): Promise<void> {
  const { documents, namespaces } = services;

  app.get(
    '/api/v1/namespaces/:namespaceKey/export',
    {
      config: { kind: 'management', access: { resource: 'document', action: 'export', namespace: 'request' } },
      schema: {
        tags,
        description:
          'The namespace (or with all=true every namespace the token may see) as a Flipt 1.4 document, the text Flipt writes',
        params: Type.Object({ namespaceKey: Type.String() }),
        querystring: ExportQuerystring,
        // No response schema: the answer is the document's text, sent as it is.
      },
    },
    async (request, reply) => {
      const ns = request.params.namespaceKey;
      const format: DocumentFormat = request.query.format ?? 'yaml';
      const all = flag(request.query.all);
      const visible = all ? namespacesVisibleTo(request.authentication) : undefined;
      const keys = all ? (visible ? [...visible] : await documents.namespaceKeys()) : [ns];
      // The text as Flipt's exporter writes it to stdout; `header=true` as it writes a file (`-o`).
      const text = await documents.export(keys, {
        format,
        sortByKey: flag(request.query.sort_by_key ?? request.query.sortByKey),
        allNamespaces: all,
        header: flag(request.query.header),
      });
      const extension = format === 'json' ? 'json' : 'yml';
      const name = all ? 'all' : ns.replace(/[^-_,A-Za-z0-9]/g, '_');
      return reply
        .header(
          'Content-Type',
          format === 'json' ? 'application/json; charset=utf-8' : 'application/yaml; charset=utf-8',
        )
        .header('Content-Disposition', `attachment; filename="vexil-export-${name}.${extension}"`)
        .send(text);
    },
  );

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: IMPORT_BODY_LIMIT }, (_request, body, done) =>
      done(null, body),
    );
    (scope as HttpApp).post(
      '/api/v1/import',
      {
        config: { kind: 'management', access: IMPORT_ACCESS },
        bodyLimit: IMPORT_BODY_LIMIT,
        schema: {
          tags,
          description: 'Imports Flipt documents (YAML or JSON, versions 1.0 to 1.4) in one transaction: all or nothing',
          querystring: ImportQuerystring,
          response: { 200: ImportResultSchema, ...errorResponses },
        },
      },
      async (request) => {
        const text = typeof request.body === 'string' ? request.body : '';
        const q = request.query;
        const drop = flag(q.drop);
        // Dropping everything is decided before the body is read: it names no namespace.
        if (drop) authorize({ access: IMPORT_DROPPING, group: 'management' }, request.authentication, {});
        const sources = [
          { name: 'request body', text, format: formatOfContentType(request.headers['content-type'], text) },
        ];
        const docs = await documents.parse(sources);
        if (docs.length === 0) throw new InvalidArgumentError('request body holds no document');
        // The documents' own namespaces, now that they are known (a scoped token: its own only, never drop).
        authorize({ access: drop ? IMPORT_DROPPING : IMPORT_DOCUMENTS, group: 'management' }, request.authentication, {
          requests: docs.map((d) => ({ namespaceKey: d.content.namespace.key })),
        });
        await checkCreatesNamespaces(request.authentication, docs, namespaces);
        try {
          return await documents.import(docs, {
            skipExisting: flag(q.skip_existing ?? q.skipExisting),
            drop,
            dryRun: flag(q.dry_run ?? q.dryRun),
          });
        } catch (err) {
          // An error of the import itself (a segment not found, a key not unique) gets its YAML line too.
          throw withLine(err, sources);
        }
      },
    );
  });
}
