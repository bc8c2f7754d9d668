// Page tabs as links (each tab has its own URL, so it can be bookmarked and shared).

import { useEffect, useRef, useState } from 'react';
import { Link } from '../lib/router.js';

/** Whether the row is wider than its box (then it scrolls sideways, and a hint says so). */
function useOverflowing<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [overflowing, setOverflowing] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const check = () => setOverflowing(el.scrollWidth > el.clientWidth + 1);
    check();
    const observer = new ResizeObserver(check);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return { ref, overflowing };
}

export function Tabs({
  tabs,
  current,
  label,
}: {
  tabs: { to: string; label: string }[];
  current: string;
  label: string;
}) {
  const { ref, overflowing } = useOverflowing<HTMLElement>();
  return (
    <>
      <nav className={overflowing ? 'tabs tabs-overflowing' : 'tabs'} aria-label={label} ref={ref}>
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
      {overflowing ? (
        <p className="tabs-hint" aria-hidden="true">
          More tabs: scroll sideways →
        </p>
      ) : null}
    </>
  );
}
