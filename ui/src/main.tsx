// Entry point of the dashboard: one React Query cache, the auth state, notices, then the app.

import { QueryClient, QueryClientProvider, replaceEqualDeep } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError, noteReadAt, revisionOf } from './api/client.js';
import { App } from './app.js';
import { NoticeProvider } from './components/notices.js';
import { AuthProvider } from './features/auth/auth-context.js';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 5_000,
      // A 4xx will not change by asking again; network blips and 5xx may.
      retry: (count, error) => count < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
      // Objects that came back unchanged are kept (React Query's default), and are as current as the
      // answer that found them unchanged: a form's precondition (If-Match) is then that revision.
      structuralSharing: (previous, next) => {
        const shared = replaceEqualDeep(previous, next);
        const revision = revisionOf(next);
        if (revision && shared !== next) noteReadAt(shared, revision);
        return shared;
      },
    },
  },
});

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <AuthProvider>
          <NoticeProvider>
            <App />
          </NoticeProvider>
        </AuthProvider>
      </QueryClientProvider>
    </StrictMode>,
  );
}
