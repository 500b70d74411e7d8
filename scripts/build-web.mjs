// Bundles the web app (src/web) into one folder of static files that
// `botpsy serve` serves at /: index.html, app.js (Preact and Observable Plot
// included, nothing loaded from elsewhere) and app.css.
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import process from "node:process";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Builds the web app into `outDirectory` (default dist/web); returns the folder. */
export async function buildWebApp(outDirectory = join(root, "dist", "web"), options = {}) {
  rmSync(outDirectory, { recursive: true, force: true });
  mkdirSync(outDirectory, { recursive: true });
  await build({
    entryPoints: [join(root, "src", "web", "main.tsx")],
    outfile: join(outDirectory, "app.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["es2022", "chrome110", "safari16", "firefox115"],
    jsx: "automatic",
    jsxImportSource: "preact",
    minify: options.minify ?? true,
    // No source map by default: the package stays small; pass { sourcemap: true } to debug the bundle.
    sourcemap: options.sourcemap ?? false,
    legalComments: "eof",
    logLevel: "warning",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  copyFileSync(join(root, "src", "web", "index.html"), join(outDirectory, "index.html"));
  copyFileSync(join(root, "src", "web", "app.css"), join(outDirectory, "app.css"));
  return outDirectory;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out = await buildWebApp(process.argv[2] === undefined ? undefined : resolve(process.argv[2]));
  process.stdout.write(`web app built into ${out}\n`);
}
