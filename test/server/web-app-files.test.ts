import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccessToken } from "../../src/server/access-token.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { resolveStaticPath } from "../../src/server/web-app.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";

/**
 * The web app's files as the server serves them: the folder's files and
 * nothing else. Requests go out as raw HTTP so that `..` and encoded
 * separators reach the server as written (fetch would tidy them away).
 */
let directory: string;
let webRoot: string;
let server: RunningServer;
let guarded: RunningServer;
const TOKEN = "web-app-files-token-0123456789abcdef";

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "botpsy-web-files-"));
  webRoot = join(directory, "web");
  mkdirSync(join(webRoot, "assets"), { recursive: true });
  writeFileSync(join(webRoot, "index.html"), "<!doctype html><title>botpsy</title>");
  writeFileSync(join(webRoot, "app.js"), "console.log('app')");
  writeFileSync(join(webRoot, "assets", "logo.svg"), "<svg/>");
  writeFileSync(join(webRoot, ".env"), "SECRET=1");
  writeFileSync(join(directory, "secret.txt"), "outside the web app");
  symlinkSync(join(directory, "secret.txt"), join(webRoot, "link.txt"));
  const model = new ScriptedModel([], { id: "scripted" });
  server = await startServer({ model, port: 0, webRoot });
  guarded = await startServer({ model, port: 0, webRoot, accessToken: AccessToken.fromToken(TOKEN) });
});

afterAll(async () => {
  await server?.close();
  await guarded?.close();
  rmSync(directory, { recursive: true, force: true });
});

function rawGet(base: RunningServer, path: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string | undefined; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const sent = request({ host: "127.0.0.1", port: base.port, path, method: "GET", headers }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, type: response.headers["content-type"], body, headers: response.headers }));
    });
    sent.on("error", reject);
    sent.end();
  });
}

describe("web app files", () => {
  it("serves index.html at / and the bundle's files with their types and a closed content policy", async () => {
    const index = await rawGet(server, "/");
    expect(index.status).toBe(200);
    expect(index.type).toBe("text/html; charset=utf-8");
    expect(index.body).toContain("<title>botpsy</title>");
    expect(String(index.headers["content-security-policy"])).toContain("default-src 'self'");
    const script = await rawGet(server, "/app.js");
    expect(script).toMatchObject({ status: 200, type: "text/javascript; charset=utf-8", body: "console.log('app')" });
    expect((await rawGet(server, "/assets/logo.svg")).type).toBe("image/svg+xml");
  });

  it.each([
    "/../secret.txt",
    "/assets/../../secret.txt",
    "/..%2fsecret.txt",
    "/%2e%2e/secret.txt",
    "/%2E%2E%2Fsecret.txt",
    "/assets/%2e%2e/%2e%2e/secret.txt",
    "/..%5csecret.txt",
    "/%5c..%5c..%5csecret.txt",
    "/app.js%00.html",
    "/.env",
    "/%2eenv",
    "/link.txt",
    "/%2Fetc%2Fpasswd",
    "//etc/passwd",
    "/%ff%fe",
    "/assets",
    "/missing.js",
  ])("refuses %s with a 404 and no file's contents", async (path) => {
    const answer = await rawGet(server, path);
    expect(answer.status).toBe(404);
    expect(answer.body).not.toContain("outside the web app");
    expect(answer.body).not.toContain("SECRET");
    expect(answer.body).not.toContain("root:");
  });

  it("resolves only paths inside the folder", () => {
    expect(resolveStaticPath(webRoot, "/")).toBe(join(webRoot, "index.html"));
    expect(resolveStaticPath(webRoot, "/assets/logo.svg")).toBe(join(webRoot, "assets", "logo.svg"));
    expect(resolveStaticPath(webRoot, "/../secret.txt")).toBeUndefined();
    expect(resolveStaticPath(webRoot, "/link.txt")).toBeUndefined();
    expect(resolveStaticPath(webRoot, "/%E0%A4%A")).toBeUndefined();
  });

  it("leaves the API's unknown paths to the API's 404", async () => {
    const answer = await rawGet(server, "/v1/nothing");
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "not_found" } });
    expect(answer.body).toContain("Routes:");
  });

  it("loads the page without the access token, but every API call still needs it", async () => {
    expect((await rawGet(guarded, "/")).status).toBe(200);
    expect((await rawGet(guarded, "/app.js")).status).toBe(200);
    expect((await rawGet(guarded, "/v1/models")).status).toBe(401);
    expect((await rawGet(guarded, "/v1/models", { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  it("accepts the page's own origin and refuses another", async () => {
    const same = await fetch(`${server.url}/v1/models`, { headers: { origin: server.url } });
    expect(same.status).toBe(200);
    expect(same.headers.get("access-control-allow-origin")).toBeNull();
    const other = await fetch(`${server.url}/v1/models`, { headers: { origin: "http://evil.example" } });
    expect(other.status).toBe(403);
  });
});
