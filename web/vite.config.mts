import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
/** The Helix server the dev server forwards API calls to (`npm run dev:web`). */
const target = process.env.HELIX_URL ?? 'http://127.0.0.1:8080';

export default defineConfig(({ mode }) => ({
  root,
  // by the mode, not the NODE_ENV of whoever runs the build (Jest sets `test`): React picks its
  // production build by this, and the JSX transform must match it
  define: { 'process.env.NODE_ENV': JSON.stringify(mode === 'production' ? 'production' : 'development') },
  base: '/',
  // JSX is compiled by Vite's own transform (React's automatic runtime); no plugin needed
  oxc: { jsx: { runtime: 'automatic', importSource: 'react', development: mode !== 'production' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // no inline scripts or data: modules: the page's CSP says script-src 'self'
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    target: 'es2022',
    // React, markdown-it and DOMPurify in one file; `npm run bench` reports its size
    chunkSizeWarningLimit: 600,
  },
  server: {
    port: 5173,
    proxy: Object.fromEntries(['/api', '/graphql', '/health', '/v1'].map((path) => [path, { target, changeOrigin: false }])),
  },
}));
