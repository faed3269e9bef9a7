// @ts-check
/**
 * `npm run lint`: the module boundaries, import cycles and the rules of hooks
 * (docs/decisions.md). Deliberately light: no style rules and no type-aware
 * rules, which would build a TypeScript program and slow CI's two cores.
 *
 * typescript-eslint needs TypeScript's JavaScript API, which TypeScript 7 no
 * longer ships: package.json installs `typescript` as @typescript/typescript6
 * (the API, used only here) and TypeScript 7 as @typescript/native (its `tsc`
 * is the one `npm run typecheck` runs).
 */
import { readdirSync } from 'node:fs';
import { defineConfig, globalIgnores } from 'eslint/config';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const root = import.meta.dirname;
const features = readdirSync(`${root}/src/features`, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

/** Packages that do I/O or belong to one runtime (server, browser, UI): domain/ stays pure. */
const runtimePackages = [
  'better-sqlite3',
  'pg',
  'pg-*',
  'kysely',
  'fastify',
  '@fastify/*',
  'web-push',
  'axios',
  'dexie',
  'react',
  'react-*',
  'react-dom/*',
  '@tanstack/*',
  'antd-mobile',
  'antd-mobile/*',
  'antd-mobile-icons',
  'workbox-*',
  'exceljs',
  'qrcode',
  'html5-qrcode',
  'jsqr',
  'browser-image-compression',
];

export default defineConfig([
  globalIgnores(['dist/', 'data/', 'coverage/', '.tmp/', 'test-results/', 'playwright-report/', 'public/']),
  {
    // Some files keep disable comments for rules this light set leaves off (no-explicit-any); they document intent.
    linterOptions: { reportUnusedDisableDirectives: 'off' },
  },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [tseslint.configs.recommended],
    plugins: { 'import-x': importX },
    settings: {
      // Only the project's own TypeScript is parsed for the cycle check; packages are never followed.
      'import-x/extensions': ['.ts', '.tsx'],
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] })],
    },
    rules: {
      // Off: 66 `any`s (55 in server/, Kysely generics) and 19 unused names: a clean-up of its own, not this linter's aim.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': 'off',

      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-self-import': 'error',
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: root,
          zones: [
            // A feature folder never imports another feature: what two features share is handed in by src/app.
            ...features.map((f) => ({
              target: `./src/features/${f}`,
              from: './src/features',
              except: [`./${f}`],
              message: 'Features do not import each other: move the shared piece out of src/features, or let src/app hand it in.',
            })),
            {
              // src/app wires the features together; the rest of src/ is what they share, so it imports neither.
              target: './src/!(app|features)/**',
              from: ['./src/features', './src/app'],
              message: 'Shared code (src/lib, src/components, src/list-screen...) imports neither src/features nor src/app.',
            },
            {
              target: './src/*.{ts,tsx}',
              from: './src/features',
              message: 'Only src/app (and the feature itself) imports from src/features.',
            },
            {
              target: './domain',
              from: ['./server', './server-push', './src', './sw'],
              message: 'domain/ is shared by the server, the PWA and the service worker, and imports none of them.',
            },
            {
              target: ['./src', './sw'],
              from: ['./server', './server-push'],
              message: 'The PWA and the service worker never import server code: share it through domain/.',
            },
            {
              target: ['./server', './server-push'],
              from: ['./src', './sw'],
              message: 'The server never imports PWA or service-worker code: share it through domain/.',
            },
            {
              // The server's layers stack one way (issue 25): modules sit on core and db, never the reverse.
              target: ['./server/core', './server/db'],
              from: './server/modules',
              message: 'server/core and server/db import nothing from server/modules: let the module hand it in (as a declaration hands in its read rule), or move the pure piece into server/core.',
            },
            {
              // The server uses server-push; server-push's storage is the PushStore the server implements (server/modules/push-store.ts).
              target: './server-push',
              from: './server',
              message: 'server-push imports nothing from server/: ask for what it needs through its PushStore (server-push/store.ts), which the server implements.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['domain/**/*.ts'],
    rules: {
      // domain/ runs in the browser and the service worker too.
      'import-x/no-nodejs-modules': 'error',
      'no-restricted-imports': ['error', { patterns: [{ group: runtimePackages, message: 'domain/ stays pure: no I/O, server or UI packages.' }] }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    // One way to confirm, alert and toast: src/lib/feedback gives each layout its look (docs/decisions.md, issue 24).
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/lib/feedback.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'antd-mobile', importNames: ['Toast'], message: 'Use showToast from src/lib/feedback (toast from src/lib/toast on the first-load path).' }],
          patterns: [{ group: ['antd-mobile/es/components/toast', 'antd-mobile/es/components/dialog'], message: 'Use src/lib/feedback.' }],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='Dialog'][property.name=/^(confirm|alert|show)$/]",
          message: 'Use confirmDialog or alertDialog from src/lib/feedback.',
        },
        { selector: "MemberExpression[object.name='Toast'][property.name='show']", message: 'Use showToast from src/lib/feedback.' },
        { selector: 'ImportExpression[source.value=/^antd-mobile\\/es\\/components\\/(toast|dialog)$/]', message: 'Use src/lib/feedback.' },
      ],
    },
  },
]);
