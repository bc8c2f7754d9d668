// OpenFeature's server SDK with the OFREP provider (@openfeature/ofrep-provider) against a listening
// Vexil: boolean, string and object flag evaluations, errors, and the namespace header.

import { OFREPProvider } from '@openfeature/ofrep-provider';
import { ErrorCode, OpenFeature } from '@openfeature/server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedRichNamespace } from '../integration/evaluation-seed.js';
import { type ListeningServer, startListeningServer } from './server.js';

describe('@openfeature/server-sdk + @openfeature/ofrep-provider against Vexil', () => {
  let server: ListeningServer;

  beforeAll(async () => {
    server = await startListeningServer();
    await seedRichNamespace(server.seeder());
    const b = server.seeder('team-b');
    await b.namespaceExists();
    await b.booleanFlag({ key: 'only-in-b', enabled: true });
    await OpenFeature.setProviderAndWait('default-ns', new OFREPProvider({ baseUrl: server.baseUrl }));
    await OpenFeature.setProviderAndWait(
      'team-b',
      new OFREPProvider({ baseUrl: server.baseUrl, headers: { 'X-Service-Namespace': 'team-b' } }),
    );
  }, 60_000);
  afterAll(async () => {
    await OpenFeature.close();
    await server?.close();
  });

  it('boolean flags', async () => {
    const client = OpenFeature.getClient('default-ns');
    const details = await client.getBooleanDetails('new-ui', false, { targetingKey: 'user-3', plan: 'pro' });
    expect(details).toMatchObject({ flagKey: 'new-ui', value: true, variant: 'true', reason: 'TARGETING_MATCH' });
    expect(details.errorCode).toBeUndefined();
    expect(await client.getBooleanValue('kill-switch', false, { targetingKey: 'user-3' })).toBe(true);
  });

  it('string flags: the variant key, with segments and attachment as flag metadata', async () => {
    const client = OpenFeature.getClient('default-ns');
    const details = await client.getStringDetails('color', 'none', {
      targetingKey: 'user-3',
      plan: 'pro',
      country: 'fr',
    });
    expect(details).toMatchObject({ value: 'blue', variant: 'blue', reason: 'TARGETING_MATCH' });
    expect(details.flagMetadata.attachment).toBe('{"hex":"#00f","dark":true}');
    expect(String(details.flagMetadata.segments).split(',').sort()).toEqual(['eu', 'pro']);
    const disabled = await client.getStringDetails('size', 'none', { targetingKey: 'user-3' });
    expect(disabled).toMatchObject({ value: 'l', reason: 'DISABLED' });
  });

  it('object flags: Flipt serves variant keys (strings), so an object read is a type mismatch; the object is the attachment', async () => {
    const client = OpenFeature.getClient('default-ns');
    const context = { targetingKey: 'user-3', plan: 'pro', country: 'fr' };
    const asObject = await client.getObjectDetails('color', { fallback: true }, context);
    expect(asObject).toMatchObject({ value: { fallback: true }, errorCode: ErrorCode.TYPE_MISMATCH, reason: 'ERROR' });
    const asString = await client.getStringDetails('color', 'none', context);
    expect(JSON.parse(String(asString.flagMetadata.attachment))).toEqual({ hex: '#00f', dark: true });
  });

  it('a missing flag gives the default with FLAG_NOT_FOUND', async () => {
    const client = OpenFeature.getClient('default-ns');
    const details = await client.getBooleanDetails('missing', true, { targetingKey: 'u' });
    expect(details).toMatchObject({ value: true, errorCode: ErrorCode.FLAG_NOT_FOUND, reason: 'ERROR' });
  });

  it('a non-string context value gives the default with INVALID_CONTEXT', async () => {
    const client = OpenFeature.getClient('default-ns');
    const details = await client.getBooleanDetails('new-ui', false, { targetingKey: 'u', age: 42 });
    expect(details).toMatchObject({ value: false, errorCode: ErrorCode.INVALID_CONTEXT });
  });

  it('X-Service-Namespace selects the namespace', async () => {
    const b = OpenFeature.getClient('team-b');
    expect(await b.getBooleanDetails('only-in-b', false, { targetingKey: 'u' })).toMatchObject({
      value: true,
      reason: 'DEFAULT',
    });
    const other = await OpenFeature.getClient('default-ns').getBooleanDetails('only-in-b', false, {
      targetingKey: 'u',
    });
    expect(other.errorCode).toBe(ErrorCode.FLAG_NOT_FOUND);
  });
});
