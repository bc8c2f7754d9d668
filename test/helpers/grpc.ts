// A real grpc.health.v1.Health client for tests of the gRPC server: plaintext by default, or with
// the credentials and channel options a test gives (TLS), and metadata on the call (traceparent).

import {
  type ChannelCredentials,
  type ChannelOptions,
  type Client,
  credentials as grpcCredentials,
  Metadata,
  makeGenericClientConstructor,
  type ServiceError,
} from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';

export type HealthClient = Client & {
  check(
    req: { service: string },
    metadata: Metadata,
    cb: (err: ServiceError | null, res: { status: string }) => void,
  ): void;
};

export interface HealthClientOptions {
  credentials?: ChannelCredentials;
  channelOptions?: ChannelOptions;
}

const Health = makeGenericClientConstructor(healthService, 'Health');

/** A Health client of the server on 127.0.0.1:port; the caller closes it. */
export function healthClient(port: number, options: HealthClientOptions = {}): HealthClient {
  return new Health(
    `127.0.0.1:${port}`,
    options.credentials ?? grpcCredentials.createInsecure(),
    options.channelOptions,
  ) as unknown as HealthClient;
}

/** One Health/Check call on `client`: its response, or the gRPC error (with its `code`). */
export function check(client: HealthClient, service = '', metadata = new Metadata()): Promise<{ status: string }> {
  return new Promise((resolve, reject) =>
    client.check({ service }, metadata, (err, res) => (err ? reject(err) : resolve(res))),
  );
}

/** One Health/Check call on a client of its own, closed after the answer. */
export async function grpcHealthCheck(
  port: number,
  options: HealthClientOptions & { service?: string; metadata?: Metadata } = {},
): Promise<{ status: string }> {
  const client = healthClient(port, options);
  try {
    return await check(client, options.service, options.metadata);
  } finally {
    client.close();
  }
}
