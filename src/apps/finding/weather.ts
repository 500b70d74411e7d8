import { z } from "zod";
import { defineTool, ToolError, type ToolContext } from "../../tools/tool.js";
import type { App } from "../app.js";
import { requireConnectivity } from "../device/connectivity.js";
import { PERSONA } from "../persona.js";
import { formatDate, parseWhen, today, zonedParts } from "../time.js";
import { clockOf } from "../time.js";
import { fetchJson, providerUrl, readDataFile, rememberProviders, withQuery } from "./providers.js";

export const WEATHER_APP = "weather";

/** Climate normals of a bundled city (data/weather/cities.json). */
export interface CityClimate {
  name: string;
  country: string;
  lat: number;
  lon: number;
  janHigh: number;
  janLow: number;
  julHigh: number;
  julLow: number;
  rainDaysJan: number;
  rainDaysJul: number;
}

export interface DailyForecast {
  place: string;
  date: string;
  weekday: string;
  condition: string;
  high_c: number;
  low_c: number;
  chance_of_rain_pct: number;
  wind_kph: number;
  humidity_pct: number;
  high_f?: number;
  low_f?: number;
}

/** How far ahead forecasts go, in days after today. */
export const FORECAST_DAYS = 14;

const ALIASES: Record<string, string> = {
  lisboa: "Lisbon",
  oporto: "Porto",
  nyc: "New York",
  "new york city": "New York",
  la: "Los Angeles",
  sf: "San Francisco",
  "washington dc": "Washington",
  "washington d.c.": "Washington",
  "rio": "Rio de Janeiro",
  "sao paulo": "Sao Paulo",
  "são paulo": "Sao Paulo",
  "bogotá": "Bogota",
  "kraków": "Krakow",
  "saigon": "Ho Chi Minh City",
  "home": PERSONA.homeCity,
};

let cities: CityClimate[] | undefined;

export function bundledCities(): CityClimate[] {
  if (!cities) cities = (JSON.parse(readDataFile("weather/cities.json")) as { cities: CityClimate[] }).cities;
  return cities;
}

function fold(text: string): string {
  return text.toLowerCase().normalize("NFD").replace(/[\u0300-\u036f]/g, "").trim();
}

/** Edit distance, for "did you mean" suggestions. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

/** The bundled city a model means by `place` ("lisbon", "Lisbon, Portugal", "NYC"). */
export function resolveCity(place: string): CityClimate {
  const all = bundledCities();
  const wanted = fold(place);
  const alias = ALIASES[wanted];
  const candidates = [wanted, fold(wanted.split(",")[0] ?? wanted), alias ? fold(alias) : ""];
  for (const candidate of candidates) {
    const found = all.find((city) => fold(city.name) === candidate);
    if (found) return found;
  }
  const close = all
    .map((city) => ({ city, score: distance(fold(city.name), candidates[1]!) }))
    .sort((a, b) => a.score - b.score)
    .filter((entry) => entry.score <= 3)
    .slice(0, 3)
    .map((entry) => entry.city.name);
  throw new ToolError(
    "unknown_place",
    `No weather for place="${place}". ${close.length > 0 ? `Did you mean ${close.join(", ")}? ` : ""}Give a city name such as "Lisbon" or "Paris".`,
  );
}

/** A 32-bit hash of text: the same city and day always give the same weather. */
function hash(text: string): number {
  let value = 2166136261;
  for (let index = 0; index < text.length; index++) value = Math.imul(value ^ text.charCodeAt(index), 16777619);
  return value >>> 0;
}

function unit(seed: string): number {
  return hash(seed) / 4294967296;
}

function dayOfYear(date: string): number {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  return Math.round((Date.UTC(year, month - 1, day) - Date.UTC(year, 0, 1)) / 86_400_000) + 1;
}

/** January value at day 15, July value at day 197, a cosine between. */
function seasonal(january: number, july: number, day: number): number {
  const mean = (january + july) / 2;
  const amplitude = (july - january) / 2;
  return mean - amplitude * Math.cos((2 * Math.PI * (day - 15)) / 365);
}

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

function weekdayOf(date: string): string {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  return WEEKDAYS[new Date(Date.UTC(year, month - 1, day)).getUTCDay()]!;
}

/** The bundled forecast of `city` on `date`: seasonal normals plus deterministic day-to-day variation. */
export function forecastFor(city: CityClimate, date: string): DailyForecast {
  const day = dayOfYear(date);
  const seed = `${city.name}|${date}`;
  const swing = (unit(`${seed}|temperature`) - 0.5) * 6;
  const high = Math.round(seasonal(city.janHigh, city.julHigh, day) + swing);
  const low = Math.min(high - 2, Math.round(seasonal(city.janLow, city.julLow, day) + swing * 0.7));
  const rainShare = Math.min(0.9, Math.max(0.02, seasonal(city.rainDaysJan, city.rainDaysJul, day) / 30));
  const draw = unit(`${seed}|sky`);
  let condition: string;
  let chance: number;
  if (draw < rainShare) {
    condition = high <= 1 ? "snow" : high >= 26 && draw < rainShare / 3 ? "thunderstorms" : draw < rainShare / 2 ? "rain" : "showers";
    chance = Math.round(60 + unit(`${seed}|chance`) * 35);
  } else if (draw < rainShare + 0.25) {
    condition = draw < rainShare + 0.12 ? "cloudy" : "partly cloudy";
    chance = Math.round(15 + unit(`${seed}|chance`) * 30);
  } else {
    condition = "sunny";
    chance = Math.round(unit(`${seed}|chance`) * 10);
  }
  return {
    place: `${city.name}, ${city.country}`,
    date,
    weekday: weekdayOf(date),
    condition,
    high_c: high,
    low_c: low,
    chance_of_rain_pct: chance,
    wind_kph: Math.round(5 + unit(`${seed}|wind`) * (condition === "thunderstorms" ? 40 : 25)),
    humidity_pct: Math.round(Math.min(98, 35 + rainShare * 60 + unit(`${seed}|humidity`) * 25)),
  };
}

function withFahrenheit(forecast: DailyForecast): DailyForecast {
  return { ...forecast, high_f: Math.round((forecast.high_c * 9) / 5 + 32), low_f: Math.round((forecast.low_c * 9) / 5 + 32) };
}

const unitsInput = z
  .string()
  .trim()
  .optional()
  .describe('"celsius" (default) or "fahrenheit".');

function wantsFahrenheit(units: string | undefined): boolean {
  if (units === undefined || units === "") return false;
  const folded = units.toLowerCase();
  if (["f", "fahrenheit", "imperial", "°f"].includes(folded)) return true;
  if (["c", "celsius", "metric", "°c", "centigrade"].includes(folded)) return false;
  throw new ToolError("invalid_units", `units="${units}" is not known. Use "celsius" or "fahrenheit".`);
}

/** The local date `text` names, checked to be within the forecast range. */
function forecastDate(text: string, context: ToolContext): string {
  const clock = clockOf(context);
  const first = today(clock);
  const date = parseWhen(text, clock, "date").date;
  const [year, month, day] = first.split("-").map(Number) as [number, number, number];
  const last = new Date(Date.UTC(year, month - 1, day + FORECAST_DAYS));
  const lastDate = formatDate({ year: last.getUTCFullYear(), month: last.getUTCMonth() + 1, day: last.getUTCDate() });
  if (date < first) {
    throw new ToolError("date_in_past", `date="${text}" is ${date}, in the past. Forecasts cover today (${first}) to ${lastDate}.`);
  }
  if (date > lastDate) {
    throw new ToolError("date_too_far", `date="${text}" is ${date}; forecasts only reach ${lastDate} (${FORECAST_DAYS} days ahead). Ask again nearer the time.`);
  }
  return date;
}

const providerForecast = z.object({
  condition: z.string(),
  high_c: z.number(),
  low_c: z.number(),
  chance_of_rain_pct: z.number().optional(),
  wind_kph: z.number().optional(),
  humidity_pct: z.number().optional(),
  place: z.string().optional(),
});

async function fromProvider(url: string, place: string, date: string, context: ToolContext): Promise<DailyForecast> {
  const body = await fetchJson(withQuery(url, { place, date }), context, "weather");
  const parsed = providerForecast.safeParse(body);
  if (!parsed.success) {
    throw new ToolError("provider_error", "The weather provider answered JSON without condition, high_c and low_c. Check its URL.");
  }
  return {
    place: parsed.data.place ?? place,
    date,
    weekday: weekdayOf(date),
    condition: parsed.data.condition,
    high_c: parsed.data.high_c,
    low_c: parsed.data.low_c,
    chance_of_rain_pct: parsed.data.chance_of_rain_pct ?? 0,
    wind_kph: parsed.data.wind_kph ?? 0,
    humidity_pct: parsed.data.humidity_pct ?? 0,
  };
}

const getWeather = defineTool({
  name: "get_weather",
  description: "Get the weather forecast for a city on one day (today, tomorrow, a weekday or a date).",
  input: z.object({
    place: z.string().trim().min(1).optional().describe(`City name, e.g. "Lisbon" (default: the user's city, ${PERSONA.homeCity}).`),
    date: z.string().trim().min(1).optional().describe('The day, e.g. "tomorrow", "Friday" or "2026-12-04" (default today).'),
    units: unitsInput,
  }),
  risk: "read",
  async run(args, context) {
    const fahrenheit = wantsFahrenheit(args.units);
    const date = forecastDate(args.date ?? "today", context);
    requireConnectivity(context.store, "get the weather");
    const provider = providerUrl(context, "weather");
    const place = args.place ?? PERSONA.homeCity;
    const forecast = provider !== undefined ? await fromProvider(provider, place, date, context) : forecastFor(resolveCity(place), date);
    return fahrenheit ? withFahrenheit(forecast) : forecast;
  },
});

const getForecast = defineTool({
  name: "get_weather_forecast",
  description: "Get a city's weather for the next several days (up to 10).",
  input: z.object({
    place: z.string().trim().min(1).optional().describe(`City name, e.g. "Paris" (default ${PERSONA.homeCity}).`),
    days: z.number().int().min(1).max(10).optional().describe("How many days from today (default 5)."),
    units: unitsInput,
  }),
  risk: "read",
  run(args, context) {
    const fahrenheit = wantsFahrenheit(args.units);
    requireConnectivity(context.store, "get the forecast");
    const city = resolveCity(args.place ?? PERSONA.homeCity);
    const parts = zonedParts(context.now(), context.timeZone);
    const days = Array.from({ length: args.days ?? 5 }, (_, offset) => {
      const day = new Date(Date.UTC(parts.year, parts.month - 1, parts.day + offset));
      const forecast = forecastFor(city, formatDate({ year: day.getUTCFullYear(), month: day.getUTCMonth() + 1, day: day.getUTCDate() }));
      const { place: _place, ...rest } = fahrenheit ? withFahrenheit(forecast) : forecast;
      return rest;
    });
    return { place: `${city.name}, ${city.country}`, days };
  },
});

export const weatherApp: App = {
  name: WEATHER_APP,
  group: "finding",
  title: "Weather",
  description: "Forecasts by city and day from bundled climate data for about a hundred cities (or a configured provider).",
  tools: [getWeather, getForecast],
  attach(store, environment) {
    rememberProviders(store, environment);
  },
  view(_tx, environment) {
    const city = resolveCity(PERSONA.homeCity);
    const parts = zonedParts(environment.now(), environment.timeZone);
    const days = Array.from({ length: 5 }, (_, offset) => {
      const day = new Date(Date.UTC(parts.year, parts.month - 1, parts.day + offset));
      return forecastFor(city, formatDate({ year: day.getUTCFullYear(), month: day.getUTCMonth() + 1, day: day.getUTCDate() }));
    });
    const lines = [
      `Weather in ${city.name}, ${city.country}`,
      ...days.map((day) => `${day.weekday.slice(0, 3)} ${day.date}  ${day.condition.padEnd(14)} ${day.high_c}° / ${day.low_c}°  rain ${day.chance_of_rain_pct}%`),
    ];
    return { text: lines.join("\n"), data: { place: `${city.name}, ${city.country}`, days, cities: bundledCities().length } };
  },
};
