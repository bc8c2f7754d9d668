// Short success messages ("Flag saved") in one live region, so every change is acknowledged.

import { createContext, type ReactNode, useCallback, useContext, useMemo, useRef, useState } from 'react';

interface Notice {
  id: number;
  text: string;
}

const NoticeContext = createContext<(text: string) => void>(() => {});

export function NoticeProvider({ children }: { children: ReactNode }) {
  const [notices, setNotices] = useState<Notice[]>([]);
  const next = useRef(1);
  const notify = useCallback((text: string) => {
    const id = next.current++;
    setNotices((list) => [...list.slice(-2), { id, text }]);
    setTimeout(() => setNotices((list) => list.filter((n) => n.id !== id)), 4000);
  }, []);
  const value = useMemo(() => notify, [notify]);
  return (
    <NoticeContext.Provider value={value}>
      {children}
      <div className="notices" role="status" aria-live="polite">
        {notices.map((n) => (
          <p key={n.id} className="notice">
            {n.text}
          </p>
        ))}
      </div>
    </NoticeContext.Provider>
  );
}

export function useNotify(): (text: string) => void {
  return useContext(NoticeContext);
}
