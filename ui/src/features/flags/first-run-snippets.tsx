// The empty flag list's "how do I use this from my application": one boolean flag evaluated with
// curl, with Flipt's Node SDK (@flipt-io/flipt) and with OpenFeature's OFREP provider, each filled in
// with this server's address and the current namespace, so a copy and paste works as it is.

import { useState } from 'react';
import { CopyButton } from '../../components/copy-button.js';
import { useAuth } from '../auth/auth-context.js';

export const EXAMPLE_FLAG = 'my-first-flag';

type Tab = 'curl' | 'node' | 'ofrep';

export function snippets(origin: string, ns: string, signedIn: boolean): Record<Tab, string> {
  const body = JSON.stringify({ namespaceKey: ns, flagKey: EXAMPLE_FLAG, entityId: 'user-42', context: {} });
  const auth = signedIn ? ` \\\n  -H "Authorization: Bearer $VEXIL_TOKEN"` : '';
  const nodeAuth = signedIn
    ? `\n  authenticationStrategy: new ClientTokenAuthentication(process.env.VEXIL_TOKEN),`
    : '';
  const ofrepHeaders = signedIn
    ? `{ 'X-Flipt-Namespace': '${ns}', Authorization: \`Bearer \${process.env.VEXIL_TOKEN}\` }`
    : `{ 'X-Flipt-Namespace': '${ns}' }`;
  return {
    curl: `curl -sS -X POST '${origin}/evaluate/v1/boolean' \\\n  -H 'Content-Type: application/json'${auth} \\\n  -d '${body}'`,
    node: `// npm install @flipt-io/flipt
import { ${signedIn ? 'ClientTokenAuthentication, ' : ''}FliptClient } from '@flipt-io/flipt';

const flipt = new FliptClient({
  url: '${origin}',${nodeAuth}
});
const result = await flipt.evaluation.boolean({
  namespaceKey: '${ns}',
  flagKey: '${EXAMPLE_FLAG}',
  entityId: 'user-42',
  context: {},
});
console.log(result.enabled);`,
    ofrep: `// npm install @openfeature/server-sdk @openfeature/ofrep-provider
import { OpenFeature } from '@openfeature/server-sdk';
import { OFREPProvider } from '@openfeature/ofrep-provider';

await OpenFeature.setProviderAndWait(
  new OFREPProvider({ baseUrl: '${origin}', headers: ${ofrepHeaders} }),
);
const client = OpenFeature.getClient();
const on = await client.getBooleanValue('${EXAMPLE_FLAG}', false, { targetingKey: 'user-42' });
console.log(on);`,
  };
}

const TABS: [Tab, string][] = [
  ['curl', 'curl'],
  ['node', 'Node (@flipt-io/flipt)'],
  ['ofrep', 'OpenFeature (OFREP)'],
];

export function FirstRunSnippets({ ns }: { ns: string }) {
  const { hasToken } = useAuth();
  const [tab, setTab] = useState<Tab>('curl');
  const code = snippets(window.location.origin, ns, hasToken)[tab];
  return (
    <section className="snippets" aria-labelledby="snippets-title">
      <h2 id="snippets-title">Evaluate it from your application</h2>
      <p>
        Create a boolean flag with the key <code>{EXAMPLE_FLAG}</code>, then ask this server for it:
      </p>
      <fieldset className="radio-row">
        <legend className="sr-only">Language</legend>
        {TABS.map(([value, label]) => (
          <label key={value} className="check">
            <input type="radio" name="snippet" checked={tab === value} onChange={() => setTab(value)} />
            {label}
          </label>
        ))}
      </fieldset>
      <pre className="code" data-testid="first-run-snippet">
        {code}
      </pre>
      <CopyButton text={code} label="Copy" small />
      {hasToken ? (
        <p className="hint">
          Set <code>VEXIL_TOKEN</code> to an API token first.
        </p>
      ) : null}
    </section>
  );
}
