// The title row of a page: breadcrumbs, heading and the page's main actions.

import type { ReactNode } from 'react';
import { Link } from '../lib/router.js';

export interface Crumb {
  label: string;
  to: string;
}

export function PageHeader({
  title,
  crumbs,
  actions,
  badge,
}: {
  title: ReactNode;
  crumbs?: Crumb[];
  actions?: ReactNode;
  badge?: ReactNode;
}) {
  return (
    <header className="page-header">
      {crumbs?.length ? (
        <nav aria-label="Breadcrumb" className="crumbs">
          <ol>
            {crumbs.map((c) => (
              <li key={c.to}>
                <Link to={c.to}>{c.label}</Link>
              </li>
            ))}
          </ol>
        </nav>
      ) : null}
      <div className="page-title-row">
        <h1>
          {title}
          {badge}
        </h1>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </div>
    </header>
  );
}
