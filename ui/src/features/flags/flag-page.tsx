// One flag: header with its state switch and actions, then tabs for details/variants, for the
// targeting (rules for variant flags, rollouts for boolean flags) and for its history.

import { useQueryClient } from '@tanstack/react-query';
import * as api from '../../api/api.js';
import { ApiError } from '../../api/client.js';
import { useNamespaceChanges } from '../../api/namespace-changes.js';
import { keys, useFlag } from '../../api/queries.js';
import { DeleteButton } from '../../components/confirm-dialog.js';
import { DateTime } from '../../components/date-time.js';
import { EmptyState } from '../../components/empty-state.js';
import { ErrorNote } from '../../components/error-note.js';
import { Loading } from '../../components/loading.js';
import { NotAllowedNote, ReadOnlyWhen } from '../../components/not-allowed.js';
import { useNotify } from '../../components/notices.js';
import { PageHeader } from '../../components/page-header.js';
import { Tabs } from '../../components/tabs.js';
import { Link, navigate, paths } from '../../lib/router.js';
import { useAuth } from '../auth/auth-context.js';
import { usePermissions } from '../auth/use-permissions.js';
import { FlagHistory } from '../history/history-tab.js';
import { RolloutsTab } from '../rollouts/rollouts-tab.js';
import { RulesTab } from '../rules/rules-tab.js';
import { CopyToNamespace } from '../transfer/copy-to-namespace.js';
import { TypeBadge } from './flag-badges.js';
import { FlagDetailsForm } from './flag-details-form.js';
import { FlagEnabledToggle } from './flag-enabled-toggle.js';
import { VariantsSection } from './variants-section.js';

export function FlagPage({
  ns,
  flagKey,
  tab,
}: {
  ns: string;
  flagKey: string;
  tab: 'details' | 'rules' | 'rollouts' | 'history';
}) {
  const flag = useFlag(ns, flagKey);
  // Someone else's change to the namespace refreshes this page (when event streams are on).
  // Paused while the sign-in prompt is up, so it opens again with the new token.
  const { needLogin } = useAuth();
  useNamespaceChanges(ns, needLogin);
  const queryClient = useQueryClient();
  const notify = useNotify();
  const permissions = usePermissions();
  // Without the editor role the flag is shown read-only, with the reason once (issue 41).
  const editWhy = permissions.reason('edit', ns);

  if (flag.isPending) return <Loading label="Loading flag…" />;
  if (flag.error) {
    const missing = flag.error instanceof ApiError && flag.error.status === 404;
    return (
      <>
        <PageHeader title={flagKey} crumbs={[{ label: 'Flags', to: paths.flags(ns) }]} />
        {missing ? (
          <EmptyState title="This flag does not exist">
            <p>
              It may have been deleted, or it lives in another namespace. A deleted flag can be restored from{' '}
              <Link to={paths.activity(ns, { type: 'flag', key: flagKey })}>its activity</Link>.
            </p>
            <Link to={paths.flags(ns)}>Back to flags</Link>
          </EmptyState>
        ) : (
          <ErrorNote error={flag.error} />
        )}
      </>
    );
  }

  const f = flag.data;
  const boolean = f.type === 'BOOLEAN_FLAG_TYPE';
  const targetingTab = boolean ? 'rollouts' : 'rules';
  const current =
    tab === 'details' ? paths.flag(ns, f.key) : paths.flag(ns, f.key, tab === 'history' ? 'history' : targetingTab);

  return (
    <>
      <PageHeader
        title={f.name || f.key}
        badge={<TypeBadge type={f.type} />}
        crumbs={[{ label: 'Flags', to: paths.flags(ns) }]}
        actions={
          <>
            {permissions.can('evaluate', ns) ? (
              <Link to={paths.console(ns, f.key)} className="btn">
                Try in console
              </Link>
            ) : null}
            {permissions.canSomewhere('edit') ? <CopyToNamespace kind="flag" ns={ns} itemKey={f.key} /> : null}
            {editWhy ? null : (
              <DeleteButton
                label="Delete flag"
                title={`Delete flag "${f.key}"?`}
                onConfirm={async () => {
                  await api.deleteFlag(ns, f.key);
                  queryClient.removeQueries({ queryKey: keys.flag(ns, f.key) });
                  await queryClient.invalidateQueries({ queryKey: keys.flags(ns) });
                  notify(`Flag "${f.key}" deleted`);
                  navigate(paths.flags(ns));
                }}
              >
                <p>
                  Its variants and {boolean ? 'rollouts' : 'rules'} are deleted. Applications asking for{' '}
                  <code>{f.key}</code> will get "not found". You can restore it, with its variants and{' '}
                  {boolean ? 'rollouts' : 'rules'}, by reverting the deletion in Activity.
                </p>
              </DeleteButton>
            )}
          </>
        }
      />
      <NotAllowedNote reason={editWhy} />
      <div className="flag-summary card">
        <ReadOnlyWhen reason={editWhy}>
          <FlagEnabledToggle flag={f} />
        </ReadOnlyWhen>
        <dl className="facts">
          <div>
            <dt>Key</dt>
            <dd>
              <code className="key">{f.key}</code>
            </dd>
          </div>
          <div>
            <dt>Namespace</dt>
            <dd>{ns}</dd>
          </div>
          <div>
            <dt>Updated</dt>
            <dd>
              <DateTime iso={f.updatedAt} />
            </dd>
          </div>
        </dl>
      </div>
      <Tabs
        label="Flag sections"
        current={current}
        tabs={[
          { to: paths.flag(ns, f.key), label: boolean ? 'Details' : 'Details and variants' },
          { to: paths.flag(ns, f.key, targetingTab), label: boolean ? 'Rollouts' : 'Rules' },
          { to: paths.flag(ns, f.key, 'history'), label: 'History' },
        ]}
      />
      {tab === 'history' ? (
        <FlagHistory ns={ns} flag={f} />
      ) : (
        <ReadOnlyWhen reason={editWhy}>
          {tab === 'details' ? (
            <div className="stack">
              <FlagDetailsForm flag={f} />
              {boolean ? null : <VariantsSection flag={f} />}
            </div>
          ) : boolean ? (
            <RolloutsTab flag={f} />
          ) : (
            <RulesTab flag={f} />
          )}
        </ReadOnlyWhen>
      )}
    </>
  );
}
