import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { Hono } from "hono";
import { ApiError } from "./api-error.js";

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json; charset=utf-8",
  ".webmanifest": "application/manifest+json",
  ".map": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};

/**
 * Where `npm run build` puts the web app: dist/web at the package root,
 * found from this module whether it runs compiled (dist/src/server) or as
 * source (src/server).
 */
export function defaultWebRoot(): string | undefined {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth++) {
    if (existsSync(join(directory, "package.json"))) {
      const root = join(directory, "dist", "web");
      return existsSync(join(root, "index.html")) ? root : undefined;
    }
    directory = dirname(directory);
  }
  return undefined;
}

/**
 * The file under `root` that a URL path names, or undefined. Refuses any
 * path that could leave the folder: encoded or plain `..` segments,
 * backslashes, NUL, and links that point outside it.
 */
export function resolveStaticPath(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0") || decoded.includes("\\")) return undefined;
  const segments = decoded.split("/").filter((segment) => segment !== "");
  if (segments.some((segment) => segment === ".." || segment === "." || segment.startsWith("."))) return undefined;
  const realRoot = realpathSync(root);
  const candidate = resolve(realRoot, ...(segments.length === 0 ? ["index.html"] : segments));
  if (!candidate.startsWith(realRoot + sep)) return undefined;
  try {
    const real = realpathSync(candidate);
    if (!real.startsWith(realRoot + sep) || !statSync(real).isFile()) return undefined;
    return real;
  } catch {
    return undefined;
  }
}

/**
 * The web app's files at `/` (read-only GETs of a fixed folder). The page
 * needs no token to load; every API call it makes does, where the server asks for one.
 */
export function webAppRoutes(root: string): Hono {
  const routes = new Hono();
  routes.get("/*", async (c, next) => {
    // The API's own unknown paths get the API's 404.
    if (c.req.path === "/v1" || c.req.path.startsWith("/v1/")) return next();
    const path = resolveStaticPath(root, c.req.path);
    if (path === undefined) throw new ApiError(404, "not_found", `There is no file ${c.req.path} in the web app.`);
    const type = CONTENT_TYPES[extname(path)] ?? "application/octet-stream";
    c.header("Content-Type", type);
    c.header("Cache-Control", "no-cache");
    c.header("X-Content-Type-Options", "nosniff");
    if (type.startsWith("text/html")) {
      // The page loads only its own files and talks only to this server.
      c.header("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
      c.header("Referrer-Policy", "no-referrer");
    }
    return c.body(readFileSync(path));
  });
  return routes;
}
