import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readSettings, writeSettings } from "../../src/apps/device/connectivity.js";
import { bundledCities, forecastFor, resolveCity, weatherApp, type DailyForecast } from "../../src/apps/finding/weather.js";
import { Profile } from "../../src/apps/profile.js";
import { failure, toolFinder } from "./support.js";

const CLOCK = "2026-12-01T09:00:00Z"; // a Tuesday
const ZONE = "Europe/Lisbon";

const tool = toolFinder(weatherApp);

function isoDay(year: number, month: number, day: number): string {
  return new Date(Date.UTC(year, month - 1, day)).toISOString().slice(0, 10);
}

describe("weather app", () => {
  let profile: Profile;
  const servers: Server[] = [];

  const open = (providers: Record<string, string> = {}): Profile =>
    Profile.open({ databasePath: ":memory:", seed: "demo", clock: CLOCK, timeZone: ZONE, apps: [weatherApp], providers });

  beforeEach(() => {
    profile = open();
  });

  afterEach(async () => {
    profile.close();
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  });

  it("declares read risk for both tools", () => {
    expect(weatherApp.tools.map((candidate) => [candidate.name, candidate.risk])).toEqual([
      ["get_weather", "read"],
      ["get_weather_forecast", "read"],
    ]);
  });

  it('scenario: "What is the weather in Lisbon tomorrow" is one call with the date normalised', async () => {
    const outcome = await profile.runTool(tool("get_weather"), { place: "Lisbon", date: "tomorrow" });
    const forecast = outcome.value as DailyForecast;
    expect(forecast).toMatchObject({ place: "Lisbon, Portugal", date: "2026-12-02", weekday: "Wednesday" });
    expect(forecast.high_c).toBeGreaterThan(forecast.low_c);
    expect(forecast.condition).toMatch(/sunny|cloudy|partly cloudy|showers|rain|thunderstorms|snow/);
    // A read changes nothing: no action is journaled.
    expect(outcome.changes).toBe(0);
    expect(outcome.actionId).toBeUndefined();
    // The same question gives the same answer in another profile with the same clock.
    const again = open();
    expect((await again.runTool(tool("get_weather"), { place: "lisbon", date: "2026-12-02" })).value).toEqual(forecast);
    again.close();
  });

  it("reads weekdays, defaults to today in the user's city, and accepts aliases and countries", async () => {
    expect(((await profile.runTool(tool("get_weather"), { place: "Paris", date: "Friday" })).value as DailyForecast)).toMatchObject({
      date: "2026-12-04",
      weekday: "Friday",
      place: "Paris, France",
    });
    expect(((await profile.runTool(tool("get_weather"), {})).value as DailyForecast)).toMatchObject({ place: "Lisbon, Portugal", date: "2026-12-01" });
    expect(((await profile.runTool(tool("get_weather"), { place: "Lisboa" })).value as DailyForecast).place).toBe("Lisbon, Portugal");
    expect(((await profile.runTool(tool("get_weather"), { place: "NYC" })).value as DailyForecast).place).toBe("New York, United States");
    expect(((await profile.runTool(tool("get_weather"), { place: "São Paulo" })).value as DailyForecast).place).toBe("Sao Paulo, Brazil");
    expect(((await profile.runTool(tool("get_weather"), { place: "Porto, Portugal" })).value as DailyForecast).place).toBe("Porto, Portugal");
  });

  it("suggests a city for a misspelt place and explains dates outside the forecast range", async () => {
    const misspelt = await failure(profile.runTool(tool("get_weather"), { place: "Lisbn" }));
    expect(misspelt.code).toBe("unknown_place");
    expect(misspelt.message).toContain("Did you mean Lisbon");
    expect((await failure(profile.runTool(tool("get_weather"), { place: "Atlantis Prime" }))).code).toBe("unknown_place");
    const past = await failure(profile.runTool(tool("get_weather"), { date: "2026-11-20" }));
    expect(past.code).toBe("date_in_past");
    expect(past.message).toContain("2026-12-01");
    const far = await failure(profile.runTool(tool("get_weather"), { date: "2027-03-01" }));
    expect(far.code).toBe("date_too_far");
    expect(far.message).toContain("2026-12-15");
    expect((await failure(profile.runTool(tool("get_weather"), { date: "someday soon-ish" }))).code).toBe("invalid_date");
  });

  it("converts to Fahrenheit on request and rejects unknown units", async () => {
    const forecast = (await profile.runTool(tool("get_weather"), { place: "Miami", units: "Fahrenheit" })).value as DailyForecast;
    expect(forecast.high_f).toBe(Math.round((forecast.high_c * 9) / 5 + 32));
    expect(forecast.low_f).toBe(Math.round((forecast.low_c * 9) / 5 + 32));
    expect((await failure(profile.runTool(tool("get_weather"), { units: "kelvin" }))).code).toBe("invalid_units");
  });

  it("gives a forecast for consecutive days", async () => {
    const result = (await profile.runTool(tool("get_weather_forecast"), { place: "Berlin", days: 7 })).value as {
      place: string;
      days: DailyForecast[];
    };
    expect(result.place).toBe("Berlin, Germany");
    expect(result.days.map((day) => day.date)).toEqual(Array.from({ length: 7 }, (_, offset) => isoDay(2026, 12, 1 + offset)));
    expect(result.days[3]!.weekday).toBe("Friday");
    await expect(profile.runTool(tool("get_weather_forecast"), { days: 30 })).rejects.toThrow();
  });

  it("has plausible, seasonal weather for about a hundred cities", () => {
    expect(bundledCities().length).toBeGreaterThanOrEqual(100);
    for (const city of bundledCities()) {
      for (let month = 1; month <= 12; month++) {
        const forecast = forecastFor(city, isoDay(2026, month, 10));
        expect(forecast.high_c - forecast.low_c).toBeGreaterThanOrEqual(2);
        expect(forecast.chance_of_rain_pct).toBeGreaterThanOrEqual(0);
        expect(forecast.chance_of_rain_pct).toBeLessThanOrEqual(100);
        if (forecast.condition === "snow") expect(forecast.high_c).toBeLessThanOrEqual(1);
      }
    }
    const meanHigh = (name: string, month: number): number => {
      const city = resolveCity(name);
      const days = Array.from({ length: 28 }, (_, day) => forecastFor(city, isoDay(2026, month, day + 1)).high_c);
      return days.reduce((sum, value) => sum + value, 0) / days.length;
    };
    expect(meanHigh("Helsinki", 7) - meanHigh("Helsinki", 1)).toBeGreaterThan(15);
    expect(meanHigh("Sydney", 1)).toBeGreaterThan(meanHigh("Sydney", 7));
    expect(Math.abs(meanHigh("Lisbon", 1) - 15)).toBeLessThan(3);
    expect(Math.abs(meanHigh("Lisbon", 7) - 28)).toBeLessThan(3);
  });

  it("needs connectivity", async () => {
    await profile.store.action({ tool: "test", args: {} }, (tx) => writeSettings(tx, { ...readSettings(tx), airplaneMode: true, wifi: false, mobileData: false }));
    expect((await failure(profile.runTool(tool("get_weather"), {}))).code).toBe("airplane_mode");
    expect((await failure(profile.runTool(tool("get_weather_forecast"), {}))).code).toBe("airplane_mode");
  });

  it("uses a configured weather provider over HTTP", async () => {
    const asked: string[] = [];
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://localhost");
      asked.push(`${url.searchParams.get("place")}|${url.searchParams.get("date")}`);
      response.setHeader("content-type", "application/json");
      response.end(url.pathname === "/bad" ? JSON.stringify({ temp: 3 }) : JSON.stringify({ condition: "fog", high_c: 12, low_c: 7 }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    profile.close();
    profile = open({ weather: `${base}/forecast` });
    const forecast = (await profile.runTool(tool("get_weather"), { place: "Lisbon", date: "tomorrow" })).value as DailyForecast;
    expect(forecast).toMatchObject({ condition: "fog", high_c: 12, low_c: 7, date: "2026-12-02", place: "Lisbon" });
    expect(asked).toEqual(["Lisbon|2026-12-02"]);
    profile.close();
    profile = open({ weather: `${base}/bad` });
    expect((await failure(profile.runTool(tool("get_weather"), {}))).code).toBe("provider_error");
    profile.close();
    profile = open({ weather: "not a url" });
    expect((await failure(profile.runTool(tool("get_weather"), {}))).code).toBe("provider_misconfigured");
  });

  it("shows the week ahead in the user's city", () => {
    const view = profile.store.read((tx) => weatherApp.view(tx, profile.environment));
    expect(view.text).toContain("Weather in Lisbon, Portugal");
    expect(view.text).toContain("Tue 2026-12-01");
    expect((view.data as { days: unknown[] }).days).toHaveLength(5);
  });
});
