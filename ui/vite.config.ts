// Vite build of the Vexil dashboard: ui/src → ui/dist, served by the server at `/`
// (src/api/http/routes/ui.ts). `npx vite --config ui/vite.config.ts` runs a dev server that proxies the
// API to a local Vexil on :8080 (VEXIL_DEV_API overrides it).

import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const api = process.env.VEXIL_DEV_API ?? 'http://127.0.0.1:8080';
const proxied = ['/api', '/evaluate', '/auth', '/meta', '/ofrep', '/internal', '/health'];

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  // No public/ directory: everything the page needs is bundled under assets/ (hashed names).
  publicDir: false,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // Keep the build free of inline scripts/styles so the server's CSP can forbid them.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  server: { proxy: Object.fromEntries(proxied.map((p) => [p, api])) },
});
