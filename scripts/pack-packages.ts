// Builds the client packages (@docsearch/sdk, @docsearch/mcp, @docsearch/cli) to JavaScript with type
// declarations and packs each with `npm pack`, so they install outside this repository and run with
// plain `node`. In the repository the packages are used as TypeScript source (their `exports` point at
// src/*.ts, run under tsx); a packed copy is staged in a temporary directory instead: dist/ from tsc,
// the package's own bin/, and a package.json whose `exports`, `types` and `bin` point at the built files.
//   npm run pack:packages -- [dest]    (tarballs in dest, default ./.tmp/packages)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');

/** The packages in build order (the MCP server and the CLI compile against the SDK's declarations). */
export const CLIENT_PACKAGES = ['sdk', 'mcp', 'cli'] as const;
export type ClientPackage = (typeof CLIENT_PACKAGES)[number];

interface Manifest {
  name: string;
  version: string;
  description?: string;
  exports: { '.': string };
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  [k: string]: unknown;
}

/** Dependencies only the in-repository form needs (the TypeScript loader). */
const SOURCE_ONLY_DEPENDENCIES = new Set(['tsx']);

/** The package.json of a packed package: built entry point, declarations, bins, no TypeScript loader. */
function packedManifest(src: Manifest, engines: unknown): Record<string, unknown> {
  const entry = path.basename(src.exports['.']).replace(/\.ts$/, '');
  const dependencies = Object.fromEntries(Object.entries(src.dependencies ?? {}).filter(([n]) => !SOURCE_ONLY_DEPENDENCIES.has(n)));
  return {
    name: src.name,
    version: src.version,
    description: src.description,
    type: 'module',
    engines,
    exports: { '.': { types: `./dist/${entry}.d.ts`, default: `./dist/${entry}.js` } },
    main: `./dist/${entry}.js`,
    types: `./dist/${entry}.d.ts`,
    ...(src.bin ? { bin: src.bin } : {}),
    files: ['dist', ...(src.bin ? ['bin'] : [])],
    dependencies,
  };
}

/** Compile `pkg`'s src/ (tests left out) into `outDir` with declarations (relative `.ts` imports become `.js` in the JavaScript). */
function build(pkg: ClientPackage, outDir: string, sdkTypes: string | undefined, work: string): void {
  const srcDir = path.join(root, 'packages', pkg, 'src');
  const tsconfig = path.join(work, `tsconfig.${pkg}.json`);
  fs.writeFileSync(tsconfig, JSON.stringify({
    compilerOptions: {
      target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, esModuleInterop: true,
      skipLibCheck: true, isolatedModules: true, declaration: true, rewriteRelativeImportExtensions: true,
      rootDir: srcDir, outDir, types: ['node'], typeRoots: [path.join(root, 'node_modules', '@types')],
      // The other packages compile against the SDK as a user would get it: its built declarations.
      ...(sdkTypes ? { paths: { '@docsearch/sdk': [sdkTypes] } } : {}),
    },
    include: [path.join(srcDir, '**', '*.ts')],
    exclude: [path.join(srcDir, '**', '*.test.ts')],
  }, null, 2));
  execFileSync(process.execPath, [tsc, '-p', tsconfig], { stdio: 'inherit' });
}

/**
 * Build and pack the client packages.
 * @param dest directory for the tarballs (created if missing)
 * @returns the tarball path of each package
 */
export function packPackages(dest: string): Record<ClientPackage, string> {
  fs.mkdirSync(dest, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-pack-'));
  const engines = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines?: unknown }).engines;
  const out = {} as Record<ClientPackage, string>;
  try {
    for (const pkg of CLIENT_PACKAGES) {
      const pkgDir = path.join(root, 'packages', pkg);
      const stage = path.join(work, pkg);
      fs.mkdirSync(stage);
      build(pkg, path.join(stage, 'dist'), pkg === 'sdk' ? undefined : path.join(work, 'sdk', 'dist', 'index.d.ts'), work);
      const manifest = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as Manifest;
      fs.writeFileSync(path.join(stage, 'package.json'), JSON.stringify(packedManifest(manifest, engines), null, 2) + '\n');
      if (manifest.bin) fs.cpSync(path.join(pkgDir, 'bin'), path.join(stage, 'bin'), { recursive: true });
      // `npm pack --json` prints an array of packed packages up to npm 11 and an object keyed by package name from npm 12.
      const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', path.resolve(dest)], { cwd: stage, encoding: 'utf8' })) as
        Array<{ filename: string }> | Record<string, { filename: string }>;
      out[pkg] = path.join(path.resolve(dest), (Array.isArray(packed) ? packed[0] : Object.values(packed)[0]).filename);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const tarballs = packPackages(process.argv[2] ?? path.join(root, '.tmp', 'packages'));
  for (const file of Object.values(tarballs)) console.log(file);
}
