// Entry point of the dashboard: one React Query cache, the auth state, notices, then the app.

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError } from './api/client.js';
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
