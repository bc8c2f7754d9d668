// Rules of variant flags in SQL: a rule matches one or more segments (rule_segments, in the order they
// were given) and splits its matches between variants by distributions. Rules are ordered by rank;
// Flipt does not keep ranks unique, so creation time breaks ties.

import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import { NotFoundError } from '../domain/errors.js';
import type { Distribution, Page, Rule } from '../domain/types.js';
import {
  distributionOf,
  distributionRow,
  ruleOf,
  ruleRow,
  ruleSegmentRows,
  segmentOperatorColumn,
} from './codecs/rules.js';
import { classifyDriverError } from './errors.js';
import { flagExists } from './flag-exists.js';
import { fetchLimit, type ListQuery, startOffset, toPage } from './pagination.js';
import { deleteAndRenumber, setRanks } from './ranking.js';
import { MAX_IN_LIST, writeTime } from './rows.js';
import type { DistributionsTable, RulesTable } from './schema.js';
import { missingSegmentKeys } from './segments.js';
import type { DistributionWrite, Executor, RuleCreate, RuleStore, RuleUpdate } from './store.js';

/** Rules from rows, with their segments and distributions loaded in two more queries. */
async function assemble(db: Executor, rows: Selectable<RulesTable>[]): Promise<Rule[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const segmentRows: { rule_id: string; segment_key: string }[] = [];
  const distributionRows: Selectable<DistributionsTable>[] = [];
  // In chunks, to stay under the databases' bound-parameter limits; a rule is always whole in one chunk.
  for (let i = 0; i < ids.length; i += MAX_IN_LIST) {
    const chunk = ids.slice(i, i + MAX_IN_LIST);
    const [segmentChunk, distributionChunk] = await Promise.all([
      db
        .selectFrom('rule_segments')
        .select(['rule_id', 'segment_key'])
        .where('rule_id', 'in', chunk)
        .orderBy('rule_id')
        .orderBy('position')
        .execute(),
      db
        .selectFrom('distributions')
        .selectAll()
        .where('rule_id', 'in', chunk)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
    ]);
    segmentRows.push(...segmentChunk);
    distributionRows.push(...distributionChunk);
  }
  const segments = new Map<string, string[]>();
  for (const row of segmentRows) {
    const list = segments.get(row.rule_id);
    if (list) list.push(row.segment_key);
    else segments.set(row.rule_id, [row.segment_key]);
  }
  const distributions = new Map<string, Distribution[]>();
  for (const row of distributionRows) {
    const list = distributions.get(row.rule_id);
    if (list) list.push(distributionOf(row));
    else distributions.set(row.rule_id, [distributionOf(row)]);
  }
  return rows.map((row) => ruleOf(row, segments.get(row.id) ?? [], distributions.get(row.id) ?? []));
}

/** A rule by id within a namespace; like Flipt, the flag is not part of the lookup. */
async function findRule(db: Executor, namespaceKey: string, id: string): Promise<Rule | undefined> {
  const row = await db
    .selectFrom('rules')
    .selectAll()
    .where('id', '=', id)
    .where('namespace_key', '=', namespaceKey)
    .executeTakeFirst();
  if (!row) return undefined;
  const [rule] = await assemble(db, [row]);
  return rule;
}

async function getRule(db: Executor, namespaceKey: string, id: string): Promise<Rule> {
  const rule = await findRule(db, namespaceKey, id);
  if (!rule) throw new NotFoundError(`rule "${namespaceKey}/${id}"`);
  return rule;
}

/** Rules of a flag by rank; an unknown flag or namespace is an empty list. */
async function listRules(db: Executor, namespaceKey: string, flagKey: string, query: ListQuery): Promise<Page<Rule>> {
  const offset = startOffset(query, true);
  const select = db
    .selectFrom('rules')
    .selectAll()
    .where('namespace_key', '=', namespaceKey)
    .where('flag_key', '=', flagKey)
    .orderBy('rank')
    .orderBy('created_at')
    .orderBy('id')
    .offset(offset)
    .limit(fetchLimit(query) ?? Number.MAX_SAFE_INTEGER);
  const [rows, count] = await Promise.all([
    select.execute(),
    db
      .selectFrom('rules')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('namespace_key', '=', namespaceKey)
      .where('flag_key', '=', flagKey)
      .executeTakeFirstOrThrow(),
  ]);
  const page = toPage(rows, query, offset, (r) => r.id);
  return { items: await assemble(db, page.items), nextPageToken: page.nextPageToken, totalCount: Number(count.n) };
}

async function insertRuleSegments(db: Executor, ruleId: string, namespaceKey: string, segmentKeys: string[]) {
  const rows = ruleSegmentRows(ruleId, namespaceKey, segmentKeys);
  // Batches keep each statement under the bound-parameter limits (4 per row).
  for (let i = 0; i < rows.length; i += MAX_IN_LIST / 4) {
    await db
      .insertInto('rule_segments')
      .values(rows.slice(i, i + MAX_IN_LIST / 4))
      .execute();
  }
}

async function insertRule(db: Executor, namespaceKey: string, flagKey: string, input: RuleCreate): Promise<Rule> {
  const notFound = () =>
    new NotFoundError(`flag "${namespaceKey}/${flagKey}" or segment "${namespaceKey}/${input.requestedSegmentKey}"`);
  // Checked first because a foreign-key error does not say which key was missing.
  if (!(await flagExists(db, namespaceKey, flagKey))) throw notFound();
  if ((await missingSegmentKeys(db, namespaceKey, input.segmentKeys)).length > 0) throw notFound();
  const id = randomUUID();
  const now = writeTime();
  try {
    await db
      .insertInto('rules')
      .values(ruleRow(id, namespaceKey, flagKey, input, now))
      .execute();
    await insertRuleSegments(db, id, namespaceKey, input.segmentKeys);
  } catch (err) {
    // A flag or segment deleted by a concurrent write between the checks and the insert.
    if (classifyDriverError(err) === 'foreign-key') throw notFound();
    throw err;
  }
  return {
    id,
    flagKey,
    namespaceKey,
    rank: input.rank,
    segmentKeys: input.segmentKeys,
    segmentOperator: input.segmentOperator,
    distributions: [],
    createdAt: now,
    updatedAt: now,
  };
}

/** Replaces the segments and the operator of a rule of this flag; the rank stays (see orderRules). */
async function updateRule(
  db: Executor,
  namespaceKey: string,
  flagKey: string,
  id: string,
  input: RuleUpdate,
): Promise<Rule> {
  const ruleNotFound = () => new NotFoundError(`rule "${namespaceKey}/${id}"`);
  const existing = await db
    .selectFrom('rules')
    .select('id')
    .where('id', '=', id)
    .where('namespace_key', '=', namespaceKey)
    .where('flag_key', '=', flagKey)
    .executeTakeFirst();
  if (!existing) throw ruleNotFound();
  const [missing] = await missingSegmentKeys(db, namespaceKey, input.segmentKeys);
  if (missing !== undefined) throw new NotFoundError(`segment "${namespaceKey}/${missing}"`);
  try {
    await db
      .updateTable('rules')
      .set({ segment_operator: segmentOperatorColumn(input.segmentOperator), updated_at: writeTime() })
      .where('id', '=', id)
      .execute();
    await db.deleteFrom('rule_segments').where('rule_id', '=', id).execute();
    await insertRuleSegments(db, id, namespaceKey, input.segmentKeys);
  } catch (err) {
    if (classifyDriverError(err) === 'foreign-key') throw ruleNotFound();
    throw err;
  }
  return getRule(db, namespaceKey, id);
}

/** Sets rank = position + 1 for each listed rule of the flag; unlisted ones keep their ranks. */
function orderRules(db: Executor, namespaceKey: string, flagKey: string, ruleIds: readonly string[]): Promise<void> {
  return setRanks(db, 'rules', namespaceKey, flagKey, ruleIds);
}

/** Deletes a rule of the flag (nothing when unknown) and renumbers the rest 1..n. */
function deleteRule(db: Executor, namespaceKey: string, flagKey: string, id: string): Promise<void> {
  return deleteAndRenumber(db, 'rules', namespaceKey, flagKey, id);
}

/**
 * Flipt checks that the variant, the rule and the flag each exist in the namespace, not that they
 * belong together; we keep that (distributions may name another flag's variant, see §3.9).
 */
async function checkDistributionParents(
  db: Executor,
  namespaceKey: string,
  flagKey: string,
  ruleId: string,
  variantId: string,
): Promise<void> {
  const [rule, variant, flag] = await Promise.all([
    db
      .selectFrom('rules')
      .select('id')
      .where('id', '=', ruleId)
      .where('namespace_key', '=', namespaceKey)
      .executeTakeFirst(),
    db
      .selectFrom('variants')
      .select('id')
      .where('id', '=', variantId)
      .where('namespace_key', '=', namespaceKey)
      .executeTakeFirst(),
    flagExists(db, namespaceKey, flagKey),
  ]);
  if (!rule || !variant || !flag) {
    throw new NotFoundError(
      `variant "${variantId}", rule "${ruleId}", flag "${flagKey}" in namespace "${namespaceKey}"`,
    );
  }
}

async function insertDistribution(
  db: Executor,
  namespaceKey: string,
  flagKey: string,
  ruleId: string,
  input: DistributionWrite,
): Promise<Distribution> {
  await checkDistributionParents(db, namespaceKey, flagKey, ruleId, input.variantId);
  const id = randomUUID();
  const now = writeTime();
  try {
    await db
      .insertInto('distributions')
      .values(distributionRow(id, ruleId, input.variantId, input.rollout, now))
      .execute();
  } catch (err) {
    if (classifyDriverError(err) === 'foreign-key') {
      throw new NotFoundError(
        `variant "${input.variantId}", rule "${ruleId}", flag "${flagKey}" in namespace "${namespaceKey}"`,
      );
    }
    throw err;
  }
  return { id, ruleId, variantId: input.variantId, rollout: input.rollout, createdAt: now, updatedAt: now };
}

async function updateDistribution(
  db: Executor,
  namespaceKey: string,
  flagKey: string,
  ruleId: string,
  id: string,
  input: DistributionWrite,
): Promise<Distribution> {
  await checkDistributionParents(db, namespaceKey, flagKey, ruleId, input.variantId);
  const result = await db
    .updateTable('distributions')
    .set({ variant_id: input.variantId, rollout: input.rollout, updated_at: writeTime() })
    .where('id', '=', id)
    .where('rule_id', '=', ruleId)
    .executeTakeFirst();
  const row =
    Number(result.numUpdatedRows) > 0
      ? await db.selectFrom('distributions').selectAll().where('id', '=', id).executeTakeFirst()
      : undefined;
  if (!row) throw new NotFoundError(`distribution "${id}"`);
  return distributionOf(row);
}

/** Deletes the distribution matching id, rule and variant; nothing when there is none. */
async function deleteDistribution(db: Executor, ruleId: string, id: string, variantId: string): Promise<void> {
  await db
    .deleteFrom('distributions')
    .where('id', '=', id)
    .where('rule_id', '=', ruleId)
    .where('variant_id', '=', variantId)
    .execute();
}

export const sqlRuleStore: RuleStore = {
  get: getRule,
  list: listRules,
  insert: insertRule,
  update: updateRule,
  order: orderRules,
  delete: deleteRule,
  insertDistribution,
  updateDistribution,
  deleteDistribution,
};
