import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { accessTokenPath } from "../../src/server/access-token.js";

/** `botpsy serve`'s refusals, which all come before a model is loaded or a port is bound. */
let home: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "botpsy-serve-command-"));
});

afterEach(() => rmSync(home, { recursive: true, force: true }));

function serve(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, ["--import", "tsx", resolve("src/cli/main.ts"), "serve", ...args], { cwd: resolve("."), env: { ...process.env, BOTPSY_HOME: home }, timeout: 60_000 }, (error, _stdout, stderr) => {
      done({ code: error && typeof error.code === "number" ? error.code : error ? -1 : 0, stderr });
    });
  });
}

describe("botpsy serve refuses", () => {
  it("an access token file that other users may read", async () => {
    writeFileSync(accessTokenPath(home), `${"a".repeat(64)}\n`, { mode: 0o644 });
    const { code, stderr } = await serve(["--host", "0.0.0.0", "--port", "0"]);
    expect(code).toBe(2);
    expect(stderr).toContain("[token_file_exposed]");
    expect(stderr).toContain("chmod 600");
  });

  it("a token file that holds no hash", async () => {
    writeFileSync(accessTokenPath(home), "not a hash\n", { mode: 0o600 });
    const { code, stderr } = await serve(["--host", "0.0.0.0", "--port", "0"]);
    expect(code).toBe(2);
    expect(stderr).toContain("[token_file_invalid]");
  });

  it("a port that is not one", async () => {
    const { code, stderr } = await serve(["--port", "70000"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--port must be a whole number from 0 to 65535");
  });
});
