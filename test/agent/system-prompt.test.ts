import { describe, expect, it } from "vitest";
import { buildSystemPrompt } from "../../src/agent/system-prompt.js";

const now = new Date("2026-12-01T09:05:00Z");

describe("buildSystemPrompt", () => {
  it("states weekday, ISO date, time and zone by default, in the profile's zone", () => {
    const prompt = buildSystemPrompt({ now, timeZone: "Asia/Tokyo" });
    expect(prompt).toContain("Today is Tuesday 2026-12-01, 18:05 (Asia/Tokyo).");
  });

  it("states only the date in words with clock: date, so no ISO date or time can be copied into arguments", () => {
    const prompt = buildSystemPrompt({ now, timeZone: "Europe/Lisbon", clock: "date" });
    expect(prompt).toContain("Today is Tuesday, 1 December 2026.");
    expect(prompt).not.toMatch(/2026-12-01|09:05|Europe\/Lisbon/);
  });

  it("appends instructions after the fixed lines and ignores blank ones", () => {
    const prompt = buildSystemPrompt({ now, timeZone: "UTC", instructions: "  Answer in Portuguese.  " });
    expect(prompt.split("\n").at(-1)).toBe("Answer in Portuguese.");
    expect(buildSystemPrompt({ now, timeZone: "UTC", instructions: "   " })).toBe(buildSystemPrompt({ now, timeZone: "UTC" }));
  });
});
