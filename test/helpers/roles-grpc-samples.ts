// One sample request per gRPC method of the role matrix (test/integration/roles-matrix.test.ts), keyed
// by `package.Service/Method`, as a client built from our protos sends it (camelCase fields). A method
// without a sample fails the matrix. Writes that remove or change objects set up fresh ones first.

import { fresh } from './roles-fixture.js';
import {
  bindingOn,
  CONSTRAINT,
  ENTITY,
  type GrpcRequest,
  type GrpcSample,
  rollout,
  type SampleContext,
  setUp,
  THRESHOLD,
} from './roles-samples.js';

type Build = (ctx: SampleContext, ns: string) => GrpcRequest['message'] | Promise<GrpcRequest['message']>;

const samples: Record<string, GrpcSample> = {};

function add(key: string, build: Build, traits: Omit<GrpcSample, 'request'> = {}): void {
  samples[key] = { ...traits, request: async (ctx, ns) => ({ message: await build(ctx, ns) }) };
}

const flipt = (method: string, build: Build, traits: Omit<GrpcSample, 'request'> = {}) =>
  add(`flipt.Flipt/${method}`, build, traits);
const fx = (ctx: SampleContext, ns: string) => ctx.fx[ns] as NonNullable<SampleContext['fx'][string]>;

// Namespaces: creating and deleting need admin on `*`, whichever namespace they name.
flipt('ListNamespaces', () => ({}));
flipt('CreateNamespace', () => {
  const key = fresh('ns');
  return { key, name: key };
});
flipt('GetNamespace', (_ctx, ns) => ({ key: ns }));
flipt('UpdateNamespace', (_ctx, ns) => ({ key: ns, name: ns, description: fresh('d') }));
flipt('DeleteNamespace', async (ctx) => {
  const key = fresh('gone');
  await setUp.namespace(ctx, key);
  return { key };
});

// Flags and variants.
flipt('ListFlags', (_ctx, ns) => ({ namespaceKey: ns }));
flipt('CreateFlag', (_ctx, ns) => {
  const key = fresh('flag');
  return { namespaceKey: ns, key, name: key, type: 'BOOLEAN_FLAG_TYPE' };
});
flipt('GetFlag', (_ctx, ns) => ({ namespaceKey: ns, key: 'f1' }));
flipt('UpdateFlag', (_ctx, ns) => ({ namespaceKey: ns, key: 'f1', name: fresh('f1'), enabled: true }));
flipt('DeleteFlag', async (ctx, ns) => {
  const key = fresh('gone');
  await setUp.flag(ctx, ns, key);
  return { namespaceKey: ns, key };
});
flipt('CreateVariant', (_ctx, ns) => {
  const key = fresh('variant');
  return { namespaceKey: ns, flagKey: 'f1', key, name: key };
});
flipt('UpdateVariant', (ctx, ns) => ({
  namespaceKey: ns,
  flagKey: 'f1',
  id: fx(ctx, ns).variantId,
  key: 'v1',
  name: fresh('v1'),
}));
flipt('DeleteVariant', async (ctx, ns) => ({
  namespaceKey: ns,
  flagKey: 'f1',
  id: await setUp.variant(ctx, ns, fresh('gone')),
}));

// Rules and distributions.
flipt('ListRules', (_ctx, ns) => ({ namespaceKey: ns, flagKey: 'f1' }));
flipt('CreateRule', (_ctx, ns) => ({ namespaceKey: ns, flagKey: 'f1', segmentKey: 's1', rank: 10 }));
flipt('OrderRules', async (ctx, ns) => ({
  namespaceKey: ns,
  flagKey: 'fo',
  ruleIds: await setUp.reversedRules(ctx, ns),
}));
flipt('GetRule', (ctx, ns) => ({ namespaceKey: ns, flagKey: 'f1', id: fx(ctx, ns).ruleId }));
flipt('UpdateRule', (ctx, ns) => ({ namespaceKey: ns, flagKey: 'f1', id: fx(ctx, ns).ruleId, segmentKey: 's1' }));
flipt('DeleteRule', async (ctx, ns) => ({ namespaceKey: ns, flagKey: 'f1', id: await setUp.rule(ctx, ns) }));
flipt('CreateDistribution', async (ctx, ns) => ({
  namespaceKey: ns,
  flagKey: 'f1',
  ruleId: await setUp.rule(ctx, ns),
  variantId: fx(ctx, ns).variantId,
  rollout: 10,
}));
flipt('UpdateDistribution', (ctx, ns) => ({
  namespaceKey: ns,
  flagKey: 'f1',
  ruleId: fx(ctx, ns).ruleId,
  id: fx(ctx, ns).distributionId,
  variantId: fx(ctx, ns).variantId,
  rollout: 50,
}));
flipt('DeleteDistribution', async (ctx, ns) => {
  const made = await setUp.distribution(ctx, ns);
  return { namespaceKey: ns, flagKey: 'f1', ruleId: made.ruleId, id: made.id, variantId: fx(ctx, ns).variantId };
});

// Segments and constraints.
flipt('ListSegments', (_ctx, ns) => ({ namespaceKey: ns }));
flipt('CreateSegment', (_ctx, ns) => {
  const key = fresh('segment');
  return { namespaceKey: ns, key, name: key, matchType: 'ANY_MATCH_TYPE' };
});
flipt('GetSegment', (_ctx, ns) => ({ namespaceKey: ns, key: 's1' }));
flipt('UpdateSegment', (_ctx, ns) => ({ namespaceKey: ns, key: 's1', name: fresh('s1'), matchType: 'ALL_MATCH_TYPE' }));
flipt('DeleteSegment', async (ctx, ns) => {
  const key = fresh('gone');
  await setUp.segment(ctx, ns, key);
  return { namespaceKey: ns, key };
});
flipt('CreateConstraint', (_ctx, ns) => ({ namespaceKey: ns, segmentKey: 's1', ...CONSTRAINT }));
flipt('UpdateConstraint', (ctx, ns) => ({
  namespaceKey: ns,
  segmentKey: 's1',
  id: fx(ctx, ns).constraintId,
  ...CONSTRAINT,
  value: fresh('plan'),
}));
flipt('DeleteConstraint', async (ctx, ns) => ({
  namespaceKey: ns,
  segmentKey: 's1',
  id: await setUp.constraint(ctx, ns),
}));

// Rollouts.
flipt('ListRollouts', (_ctx, ns) => ({ namespaceKey: ns, flagKey: 'b1' }));
flipt('CreateRollout', (_ctx, ns) => ({ namespaceKey: ns, flagKey: 'b1', ...rollout() }));
flipt('OrderRollouts', async (ctx, ns) => ({
  namespaceKey: ns,
  flagKey: 'bo',
  rolloutIds: await setUp.reversedRollouts(ctx, ns),
}));
flipt('GetRollout', (ctx, ns) => ({ namespaceKey: ns, flagKey: 'b1', id: fx(ctx, ns).rolloutId }));
flipt('UpdateRollout', (ctx, ns) => ({
  namespaceKey: ns,
  flagKey: 'b1',
  id: fx(ctx, ns).rolloutId,
  description: fresh('d'),
  threshold: THRESHOLD,
}));
flipt('DeleteRollout', async (ctx, ns) => ({ namespaceKey: ns, flagKey: 'b1', id: await setUp.rollout(ctx, ns) }));

// Evaluation, snapshots, OFREP and the change stream.
flipt('Evaluate', (_ctx, ns) => ({ namespaceKey: ns, flagKey: 'f1', ...ENTITY }));
flipt('BatchEvaluate', (_ctx, ns) => ({ namespaceKey: ns, requests: [{ flagKey: 'f1', ...ENTITY }] }));
const evaluation = 'flipt.evaluation.EvaluationService';
add(`${evaluation}/Boolean`, (_ctx, ns) => ({ namespaceKey: ns, flagKey: 'b1', ...ENTITY }));
add(`${evaluation}/Variant`, (_ctx, ns) => ({ namespaceKey: ns, flagKey: 'f1', ...ENTITY }));
add(`${evaluation}/Batch`, (_ctx, ns) => ({ requests: [{ namespaceKey: ns, flagKey: 'b1', ...ENTITY }] }));
add('flipt.evaluation.DataService/EvaluationSnapshotNamespace', (_ctx, ns) => ({ key: ns }));
const ofrep = 'flipt.ofrep.OFREPService';
add(`${ofrep}/GetProviderConfiguration`, () => ({}));
for (const method of ['EvaluateFlag', 'EvaluateBulk']) {
  samples[`${ofrep}/${method}`] = {
    request: (_ctx, ns) => ({
      message: { key: 'b1', context: { targetingKey: 'e1', plan: 'pro' } },
      metadata: { 'x-service-namespace': ns },
    }),
  };
}
add('vexil.changes.v1.ChangeService/WatchNamespace', (_ctx, ns) => ({ namespaceKey: ns }), { stream: true });

// Authentication: the target of a token call is a token reaching `ns` only.
const auth = 'flipt.auth.AuthenticationService';
add(`${auth}/GetAuthenticationSelf`, () => ({}));
add(`${auth}/ExpireAuthenticationSelf`, () => ({}), { freshCaller: true });
add(`${auth}/ListAuthentications`, () => ({}));
add(`${auth}/GetAuthentication`, (ctx, ns) => ({ id: fx(ctx, ns).tokenId }), { target: true, handlerRole: 'admin' });
add(`${auth}/DeleteAuthentication`, async (ctx, ns) => ({ id: await setUp.token(ctx, ns) }), { target: true });
add(
  'flipt.auth.AuthenticationMethodTokenService/CreateToken',
  (_ctx, ns) => ({ name: fresh('made'), description: 'matrix', roles: [{ role: 'admin', namespace: ns }] }),
  { target: true },
);
add('flipt.auth.PublicAuthenticationService/ListAuthenticationMethods', () => ({}));
// Sign-in methods that are off here: any answer but a refusal (they come before any credential).
const signIn = { anyStatus: true } as const;
add('flipt.auth.AuthenticationMethodOIDCService/AuthorizeURL', () => ({ provider: 'none', state: 's' }), signIn);
add('flipt.auth.AuthenticationMethodOIDCService/Callback', () => ({ provider: 'none', code: 'c', state: 's' }), signIn);
add('flipt.auth.AuthenticationMethodGithubService/AuthorizeURL', () => ({ state: 's' }), signIn);
add('flipt.auth.AuthenticationMethodGithubService/Callback', () => ({ code: 'c', state: 's' }), signIn);
add(
  'flipt.auth.AuthenticationMethodKubernetesService/VerifyServiceAccount',
  () => ({ serviceAccountToken: 'x' }),
  signIn,
);
// Role bindings (pending: see PENDING_SAMPLES).
const bindingService = 'vexil.roles.v1.RoleBindingService';
add(`${bindingService}/ListRoleBindings`, () => ({}));
add(`${bindingService}/CreateRoleBinding`, (_ctx, ns) => bindingOn(ns));
add(`${bindingService}/GetRoleBinding`, async (ctx, ns) => ({ id: await setUp.binding(ctx, ns) }), { target: true });
add(`${bindingService}/DeleteRoleBinding`, async (ctx, ns) => ({ id: await setUp.binding(ctx, ns) }), { target: true });
add('flipt.meta.MetadataService/GetInfo', () => ({}));
add('flipt.meta.MetadataService/GetConfiguration', () => ({}));

export const GRPC_SAMPLES: Readonly<Record<string, GrpcSample>> = samples;
