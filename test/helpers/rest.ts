// JSON over the REST API as the write tests read it: the status, the parsed body and the revision the
// answer named (X-Vexil-Revision), with an optional precondition (If-Match, sent as given).

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
type Json = any;

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RestAnswer {
  status: number;
  body: Json;
  revision: string | null;
}

export interface RestClient {
  send(method: Method, url: string, body?: unknown, ifMatch?: string): Promise<RestAnswer>;
  /** The body of a 200 answer; anything else throws, naming the request and the answer. */
  ok(method: Method, url: string, body?: unknown): Promise<Json>;
}

/** `base`: read on every request, so a client made before the server listens works once it does. */
export function restClient(base: () => string): RestClient {
  const send = async (method: Method, url: string, body?: unknown, ifMatch?: string): Promise<RestAnswer> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (ifMatch !== undefined) headers['if-match'] = ifMatch;
    const res = await fetch(`${base()}${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: text ? JSON.parse(text) : undefined,
      revision: res.headers.get('x-vexil-revision'),
    };
  };
  return {
    send,
    async ok(method, url, body) {
      const res = await send(method, url, body);
      if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
  };
}
