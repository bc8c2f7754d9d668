// The console's request as a curl command an operator can paste into a terminal: the server's own
// address, the namespace as a header as well as in the body, and, when the dashboard is signed in,
// a token placeholder (never the token itself, which would end up in shell history and chat logs).

export interface CurlInput {
  origin: string;
  kind: 'boolean' | 'variant';
  namespaceKey: string;
  flagKey: string;
  entityId: string;
  context: Record<string, string>;
  signedIn: boolean;
}

/** Single-quoted for POSIX shells: a ' inside becomes '\''. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function curlCommand(input: CurlInput): string {
  const body = JSON.stringify({
    namespaceKey: input.namespaceKey,
    flagKey: input.flagKey,
    entityId: input.entityId,
    context: input.context,
  });
  const lines = [
    `curl -sS -X POST ${shellQuote(`${input.origin}/evaluate/v1/${input.kind}`)}`,
    `-H 'Content-Type: application/json'`,
    `-H ${shellQuote(`X-Flipt-Namespace: ${input.namespaceKey}`)}`,
    // Double quotes so the shell fills in the variable the operator sets.
    ...(input.signedIn ? [`-H "Authorization: Bearer $VEXIL_TOKEN"`] : []),
    `-d ${shellQuote(body)}`,
  ];
  return lines.join(' \\\n  ');
}
