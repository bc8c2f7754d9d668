// Page tabs as links (each tab has its own URL, so it can be bookmarked and shared).

import { Link } from '../lib/router.js';

export function Tabs({
  tabs,
  current,
  label,
}: {
  tabs: { to: string; label: string }[];
  current: string;
  label: string;
}) {
  return (
    <nav className="tabs" aria-label={label}>
      {tabs.map((t) => (
        <Link
          key={t.to}
          to={t.to}
          className={t.to === current ? 'tab tab-current' : 'tab'}
          aria-current={t.to === current ? 'page' : undefined}
        >
          {t.label}
        </Link>
      ))}
    </nav>
  );
}
