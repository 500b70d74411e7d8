import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openAgentProfile } from "../../src/cli/commands/run.js";
import { runCli } from "../support/cli-process.js";
import { makeTempDir } from "../support/temp-dir.js";

const savedHome = process.env.BOTPSY_HOME;

afterEach(() => {
  if (savedHome === undefined) delete process.env.BOTPSY_HOME;
  else process.env.BOTPSY_HOME = savedHome;
});

describe("the profile an agent command opens (run, chat, resume and serve)", () => {
  it("gives the web apps config.json's providers, on the profile named", async () => {
    const home = makeTempDir("botpsy-agent-profile-");
    process.env.BOTPSY_HOME = home;
    writeFileSync(join(home, "config.json"), JSON.stringify({ providers: { web_search: "http://127.0.0.1:9/search", weather: "http://127.0.0.1:9/weather" } }));
    const { profile, webVia } = await openAgentProfile({ profileName: "work", webVia: "here" });
    try {
      expect(webVia).toBeUndefined();
      expect(profile.name).toBe("work");
      expect(profile.environment.providers).toEqual({ web_search: "http://127.0.0.1:9/search", weather: "http://127.0.0.1:9/weather" });
    } finally {
      profile.close();
    }
  });

  it("botpsy serve reads --web-via: a peer that is not paired is refused before any model loads", async () => {
    const home = makeTempDir("botpsy-serve-web-via-");
    const result = await runCli(home, ["serve", "--port", "0", "--web-via", "home"], 60_000);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('No peer is paired as "home"');
    expect(result.stderr).toContain("--web-via here");
    expect(result.stdout).not.toContain("botpsy serves");
  });

  it("botpsy serve reads peer.webVia from config.json too", async () => {
    const home = makeTempDir("botpsy-serve-web-via-");
    writeFileSync(join(home, "config.json"), JSON.stringify({ peer: { webVia: "office" } }));
    const result = await runCli(home, ["serve", "--port", "0"], 60_000);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('No peer is paired as "office"');
  });
});
