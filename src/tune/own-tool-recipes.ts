import { z } from "zod";
import { defineTool, type Tool } from "../tools/tool.js";
import type { SeededRandom } from "./random.js";
import type { Recipe } from "./recipes.js";
import { answer, call, resultAnswer } from "./replies.js";

/**
 * The user's own tools: functions a person or another program hands botpsy
 * (through MCP or the server's OpenAI-style `tools`), not botpsy's apps. With
 * a handful of tools the ToolBox offers them all, as it does at inference.
 * Two recipes share one set of tools:
 *
 * - `own-tool-call`: the request is what one of the offered tools is for; the
 *   model calls it with the request's values and answers from its result;
 * - `own-tool-mismatch`: the request carries values that would fit an offered
 *   tool's parameters, but asks for something else (a perimeter with an area
 *   tool offered, a percentage with a loan calculator); the model answers in
 *   words, working it out itself where it can, and calls nothing.
 *
 * Both are drawn from the same tools so that what decides is the tool's
 * purpose against the request's, not whether a tool is foreign.
 */

/** A tool of the user's, with the requests it serves and near misses it does not. */
export interface OwnTool {
  tool: Tool;
  /** A request it serves: the text, the call's arguments, and the answer once the result is known. */
  fits(random: SeededRandom): { request: string; args: Record<string, unknown>; done: (value: unknown) => string };
  /** A request on a neighbouring purpose with values that would fill its parameters: the text and the reply in words. */
  misses(random: SeededRandom): { request: string; reply: string };
}

export function round(value: number, places = 2): number {
  const factor = 10 ** places;
  return Math.round(value * factor) / factor;
}

export function shown(value: number): string {
  return round(value).toLocaleString("en-US", { maximumFractionDigits: 2 });
}

export function readTool(name: string, description: string, input: z.ZodType, run: (args: Record<string, unknown>) => unknown): Tool {
  return defineTool({ name, description, input, risk: "read", app: "user", run: (args: unknown) => run(args as Record<string, unknown>) }) as Tool;
}

/** Exchange rates per euro (fixed, so results repeat). */
const RATES: Record<string, number> = { EUR: 1, USD: 1.08, GBP: 0.86, JPY: 162, CHF: 0.95, CAD: 1.47, SEK: 11.4, PLN: 4.3 };
const QUOTES: Record<string, number> = { ACME: 41.2, NORDCO: 118.5, BLUEWAVE: 12.85, KESTREL: 77.1, ORBITAL: 203.4 };
const POPULATIONS: Record<string, number> = { Lyon: 522_000, Porto: 232_000, Kraków: 804_000, Gothenburg: 604_000, Valencia: 807_000, Leeds: 812_000, Graz: 298_000 };

const OWN_TOOLS: readonly OwnTool[] = [
  {
    tool: readTool(
      "rectangle_area",
      "Area of a rectangle from its two side lengths.",
      z.object({ width: z.number().describe("Width, in any unit"), length: z.number().describe("Length, in the same unit") }),
      (args) => ({ area: Number(args.width) * Number(args.length) }),
    ),
    fits(random) {
      const [width, length] = [random.integer(2, 30), random.integer(2, 40)];
      return {
        request: random.pick([`What's the area of a room ${width} m by ${length} m?`, `area of a ${width} x ${length} rectangle`, `how big is a ${width} by ${length} metre garden in square metres`]),
        args: { width, length },
        done: (value) => `The area is ${shown((value as { area: number }).area)} square units.`,
      };
    },
    misses(random) {
      const [width, length] = [random.integer(2, 30), random.integer(2, 40)];
      return random.pick([
        { request: `what's the perimeter of a ${width} by ${length} rectangle`, reply: `The perimeter is 2 × (${width} + ${length}) = ${2 * (width + length)}. The tool I have works out areas, so I did this one myself.` },
        { request: `how long is the diagonal of a ${width} x ${length} rectangle`, reply: `The diagonal is √(${width}² + ${length}²) ≈ ${shown(Math.hypot(width, length))}.` },
        { request: `how much fencing do I need around a ${width} m by ${length} m field`, reply: `You need ${2 * (width + length)} m of fencing: the perimeter, 2 × (${width} + ${length}).` },
      ]);
    },
  },
  {
    tool: readTool(
      "circle_area",
      "Area of a circle from its radius.",
      z.object({ radius: z.number().describe("The radius") }),
      (args) => ({ area: round(Math.PI * Number(args.radius) ** 2) }),
    ),
    fits(random) {
      const radius = random.integer(2, 25);
      return {
        request: random.pick([`area of a circle with radius ${radius}`, `What's the area of a round table ${radius} dm in radius?`, `a circle has a radius of ${radius} cm, how much area is that`]),
        args: { radius },
        done: (value) => `The area is about ${shown((value as { area: number }).area)}.`,
      };
    },
    misses(random) {
      const radius = random.integer(2, 25);
      return random.pick([
        { request: `what's the circumference of a circle with radius ${radius}`, reply: `The circumference is 2π × ${radius} ≈ ${shown(2 * Math.PI * radius)}.` },
        { request: `volume of a ball with a radius of ${radius} cm?`, reply: `A sphere of radius ${radius} cm holds 4/3 π × ${radius}³ ≈ ${shown((4 / 3) * Math.PI * radius ** 3)} cm³.` },
        { request: `a circle is ${radius * 2} cm across, what's its radius`, reply: `Its radius is half the diameter: ${radius} cm.` },
      ]);
    },
  },
  {
    tool: readTool(
      "loan_payment",
      "Monthly repayment of a loan with a fixed annual interest rate.",
      z.object({
        principal: z.number().describe("Amount borrowed"),
        annual_rate: z.number().describe("Yearly interest rate in percent, e.g. 4.5"),
        years: z.number().int().describe("Length of the loan in years"),
      }),
      (args) => {
        const monthly = Number(args.annual_rate) / 1200;
        const months = Number(args.years) * 12;
        const payment = monthly === 0 ? Number(args.principal) / months : (Number(args.principal) * monthly) / (1 - (1 + monthly) ** -months);
        return { monthly_payment: round(payment), total_paid: round(payment * months) };
      },
    ),
    fits(random) {
      const principal = random.pick([8_000, 15_000, 24_000, 120_000, 250_000]);
      const rate = random.pick([2.5, 3.9, 4.5, 6, 7.2]);
      const years = random.pick([3, 5, 10, 20, 25]);
      return {
        request: random.pick([
          `What would I pay each month on a ${principal} loan at ${rate}% over ${years} years?`,
          `monthly payment for borrowing ${principal} for ${years} years at ${rate} percent`,
          `if I take a ${years}-year loan of ${principal} at ${rate}% interest, how much a month?`,
        ]),
        args: { principal, annual_rate: rate, years },
        done: (value) => `You would pay about ${shown((value as { monthly_payment: number }).monthly_payment)} a month.`,
      };
    },
    misses(random) {
      const [percent, amount] = [random.pick([5, 12, 15, 20, 25, 30]), random.pick([40, 80, 120, 250, 600])];
      return random.pick([
        { request: `what's ${percent}% of ${amount}`, reply: `${percent}% of ${amount} is ${shown((percent * amount) / 100)}.` },
        { request: `a ${amount} euro jacket is ${percent}% off, what do I pay`, reply: `You pay ${shown(amount * (1 - percent / 100))} euros: ${amount} less ${percent}%.` },
        { request: `what's the interest rate my bank charges on my mortgage`, reply: "I can't see your bank's rates: the tool I have only works out repayments for a rate you give it." },
      ]);
    },
  },
  {
    tool: readTool(
      "convert_currency",
      "Converts an amount of money between currencies at today's rate.",
      z.object({
        amount: z.number().describe("How much money"),
        from: z.string().describe("Currency code to convert from, e.g. EUR"),
        to: z.string().describe("Currency code to convert to, e.g. USD"),
      }),
      (args) => {
        const from = RATES[String(args.from).toUpperCase()];
        const to = RATES[String(args.to).toUpperCase()];
        if (from === undefined || to === undefined) throw new Error(`Unknown currency: use one of ${Object.keys(RATES).join(", ")}.`);
        return { amount: round((Number(args.amount) / from) * to), currency: String(args.to).toUpperCase() };
      },
    ),
    fits(random) {
      const currencies = Object.keys(RATES);
      const from = random.pick(currencies);
      const to = random.pick(currencies.filter((code) => code !== from));
      const amount = random.pick([20, 75, 150, 400, 1_200]);
      return {
        request: random.pick([`convert ${amount} ${from} to ${to}`, `How much is ${amount} ${from} in ${to}?`, `what do ${amount} ${from} come to in ${to} today`]),
        args: { amount, from, to },
        done: (value) => `${amount} ${from} is about ${shown((value as { amount: number }).amount)} ${to}.`,
      };
    },
    misses(random) {
      const amount = random.pick([3, 10, 26, 42, 100]);
      return random.pick([
        { request: `convert ${amount} miles to km`, reply: `${amount} miles is about ${shown(amount * 1.609344)} km.` },
        { request: `${amount} kg in pounds?`, reply: `${amount} kg is about ${shown(amount * 2.2046226)} pounds.` },
        { request: `how many euros was the dollar worth in 1999`, reply: "I can't look up past exchange rates: the tool I have converts at today's rate only." },
      ]);
    },
  },
  {
    tool: readTool(
      "body_mass_index",
      "Body mass index from weight in kilograms and height in centimetres.",
      z.object({ weight_kg: z.number().describe("Weight in kg"), height_cm: z.number().describe("Height in cm") }),
      (args) => ({ bmi: round(Number(args.weight_kg) / (Number(args.height_cm) / 100) ** 2, 1) }),
    ),
    fits(random) {
      const [weight, height] = [random.integer(48, 110), random.integer(150, 198)];
      return {
        request: random.pick([`what's my BMI, I'm ${height} cm and ${weight} kg`, `BMI for ${weight} kg at ${height} cm tall?`, `I weigh ${weight} kilos and I'm ${height} cm tall, work out my body mass index`]),
        args: { weight_kg: weight, height_cm: height },
        done: (value) => `Your BMI is ${(value as { bmi: number }).bmi}.`,
      };
    },
    misses(random) {
      const [base, height] = [random.integer(3, 20), random.integer(2, 15)];
      return random.pick([
        { request: `a triangle is ${base} wide at the bottom and ${height} tall: how much area does it cover`, reply: `The area is ½ × ${base} × ${height} = ${shown((base * height) / 2)}.` },
        { request: `how many calories should I eat a day to lose weight`, reply: "I can't work that out with the tool I have (it gives a body mass index); a doctor or a dietitian can help you set a target." },
        { request: `I'm ${base + 160} cm tall, how tall is that in feet`, reply: `${base + 160} cm is about ${shown((base + 160) / 30.48)} feet.` },
      ]);
    },
  },
  {
    tool: readTool(
      "split_bill",
      "Splits a restaurant bill, tip included, between a number of people.",
      z.object({
        total: z.number().describe("The bill before the tip"),
        tip_percent: z.number().describe("Tip in percent"),
        people: z.number().int().describe("How many people pay"),
      }),
      (args) => {
        const withTip = Number(args.total) * (1 + Number(args.tip_percent) / 100);
        return { each: round(withTip / Number(args.people)), total_with_tip: round(withTip) };
      },
    ),
    fits(random) {
      const [total, tip, people] = [random.pick([48, 86, 120, 164, 230]), random.pick([10, 12, 15, 18, 20]), random.integer(2, 6)];
      return {
        request: random.pick([`split a ${total} bill between ${people} of us with a ${tip}% tip`, `dinner was ${total}, ${people} people, ${tip} percent tip: what does each pay?`, `we're ${people} and the bill is ${total}, add ${tip}% tip and split it`]),
        args: { total, tip_percent: tip, people },
        done: (value) => `Each of you pays ${shown((value as { each: number }).each)}.`,
      };
    },
    misses(random) {
      const [count, size] = [random.integer(2, 9), random.integer(3, 12)];
      return random.pick([
        { request: `if ${count} boxes hold ${size} eggs each, how many eggs is that`, reply: `${count} × ${size} = ${count * size} eggs.` },
        { request: `what's a normal tip in Japan`, reply: "Tipping isn't usual in Japan; good service is expected without one." },
        { request: `book a table for ${count} at an Italian restaurant tonight`, reply: "I can't book restaurants: the tool I have only splits a bill once you have one." },
      ]);
    },
  },
  {
    tool: readTool(
      "stock_quote",
      "The latest price of a listed share, by its ticker symbol.",
      z.object({ symbol: z.string().describe("Ticker symbol, e.g. ACME") }),
      (args) => {
        const price = QUOTES[String(args.symbol).toUpperCase()];
        if (price === undefined) throw new Error(`No quote for ${String(args.symbol)}: check the ticker symbol.`);
        return { symbol: String(args.symbol).toUpperCase(), price };
      },
    ),
    fits(random) {
      const symbol = random.pick(Object.keys(QUOTES));
      return {
        request: random.pick([`what's ${symbol} trading at`, `price of ${symbol} shares?`, `How much is one share of ${symbol} right now?`]),
        args: { symbol },
        done: (value) => `${symbol} is at ${(value as { price: number }).price}.`,
      };
    },
    misses(random) {
      const symbol = random.pick(Object.keys(QUOTES));
      const count = random.integer(2, 50);
      return random.pick([
        { request: `buy ${count} shares of ${symbol}`, reply: `I can't buy shares: the tool I have only looks up prices. Your broker's app can place the order.` },
        { request: `what's a stock split, in simple terms`, reply: "A stock split divides each share into several cheaper ones: you own more shares, each worth less, and the total value stays the same." },
        { request: `sell my ${symbol} shares`, reply: `I can't sell shares: the tool I have only looks up prices.` },
      ]);
    },
  },
  {
    tool: readTool(
      "city_population",
      "How many people live in a city.",
      z.object({ city: z.string().describe("City name") }),
      (args) => {
        const population = POPULATIONS[String(args.city)];
        if (population === undefined) throw new Error(`No population figure for ${String(args.city)}.`);
        return { city: String(args.city), population };
      },
    ),
    fits(random) {
      const city = random.pick(Object.keys(POPULATIONS));
      return {
        request: random.pick([`how many people live in ${city}`, `population of ${city}?`, `What's the population of ${city} these days?`]),
        args: { city },
        done: (value) => `About ${shown((value as { population: number }).population)} people live in ${city}.`,
      };
    },
    misses(random) {
      const city = random.pick(Object.keys(POPULATIONS));
      return random.pick([
        { request: `what's the weather like in ${city} today`, reply: `I can't check the weather with the tools I have: the one offered gives city populations.` },
        { request: `find me a hotel in ${city} for the weekend`, reply: `I can't look for hotels with the tools I have; the one offered only gives a city's population.` },
        { request: `what time is it in ${city}`, reply: `I can't tell the time in ${city} with the tools I have: the one offered gives populations.` },
      ]);
    },
  },
  {
    tool: readTool(
      "days_between",
      "Number of days between two dates.",
      z.object({ start: z.string().describe("First date, YYYY-MM-DD"), end: z.string().describe("Second date, YYYY-MM-DD") }),
      (args) => {
        const days = Math.round((Date.parse(`${String(args.end)}T00:00:00Z`) - Date.parse(`${String(args.start)}T00:00:00Z`)) / 86_400_000);
        if (Number.isNaN(days)) throw new Error("Give both dates as YYYY-MM-DD.");
        return { days };
      },
    ),
    fits(random) {
      const [start, end] = twoDates(random);
      return {
        request: random.pick([`how many days from ${start} to ${end}`, `days between ${start} and ${end}?`, `count the days from ${start} until ${end}`]),
        args: { start, end },
        done: (value) => `There are ${(value as { days: number }).days} days between them.`,
      };
    },
    misses(random) {
      const [start] = twoDates(random);
      const weekday = new Intl.DateTimeFormat("en-US", { weekday: "long", timeZone: "UTC" }).format(new Date(`${start}T12:00:00Z`));
      const weeks = random.integer(2, 9);
      return random.pick([
        { request: `what day of the week is ${start}`, reply: `${start} is a ${weekday}.` },
        { request: `how many days are in ${weeks} weeks`, reply: `${weeks} weeks is ${weeks * 7} days.` },
        { request: `add a reminder on ${start} to call the bank`, reply: "I can't set reminders with the tools I have: the one offered only counts days between dates." },
      ]);
    },
  },
  {
    tool: readTool(
      "paint_needed",
      "Litres of paint for a wall area and number of coats.",
      z.object({ area_m2: z.number().describe("Wall area in square metres"), coats: z.number().int().describe("Number of coats") }),
      (args) => ({ litres: round((Number(args.area_m2) * Number(args.coats)) / 10, 1) }),
    ),
    fits(random) {
      const [area, coats] = [random.integer(8, 60), random.integer(1, 3)];
      return {
        request: random.pick([`how much paint for ${area} square metres, ${coats} coats`, `I'm painting ${area} m² of wall with ${coats} coats, how many litres do I need?`, `paint for a ${area} m2 wall, ${coats} coats?`]),
        args: { area_m2: area, coats },
        done: (value) => `You need about ${(value as { litres: number }).litres} litres.`,
      };
    },
    misses(random) {
      const [area, tile] = [random.integer(4, 30), random.pick([0.25, 0.5])];
      return random.pick([
        { request: `how many ${tile} m² tiles cover ${area} square metres`, reply: `${area} ÷ ${tile} = ${shown(area / tile)} tiles, before any spares for cuts.` },
        { request: `what colour goes with a grey sofa`, reply: "Warm whites, mustard yellow, navy or soft green all go well with grey." },
        { request: `order ${area} litres of white paint`, reply: "I can't order paint: the tool I have only works out how much you need." },
      ]);
    },
  },
];

/** Two dates in the same year, the first before the second, away from the profile clock. */
function twoDates(random: SeededRandom): [string, string] {
  const year = random.pick([2024, 2025, 2026]);
  const first = Date.UTC(year, random.integer(0, 5), random.integer(1, 28));
  const second = first + random.integer(5, 180) * 86_400_000;
  return [new Date(first).toISOString().slice(0, 10), new Date(second).toISOString().slice(0, 10)];
}

/** The tool asked for, and up to two others of its family in a seeded order. */
function offered(random: SeededRandom, chosen: OwnTool, family: readonly OwnTool[]): Tool[] {
  const others = random.shuffle(family.filter((candidate) => candidate !== chosen)).slice(0, random.integer(0, 2));
  return random.shuffle([chosen, ...others]).map((own) => own.tool);
}

/** The two recipes of a family of the user's tools: a call when one fits the request, words when only its parameters do. */
export function ownToolRecipes(family: readonly OwnTool[], ids: { call: string; mismatch: string }, weights: { call: number; mismatch: number }): Recipe[] {
  return [
    {
      id: ids.call,
      kind: "single-call",
      tools: family.map((own) => own.tool.name),
      weight: weights.call,
      build(random) {
        const own = random.pick(family);
        const { request, args, done } = own.fits(random);
        return {
          request,
          tools: offered(random, own, family),
          turns: [
            () => call(own.tool.name, args),
            (observed) => resultAnswer(observed, done),
          ],
        };
      },
    },
    {
      id: ids.mismatch,
      kind: "abstention",
      tools: [],
      weight: weights.mismatch,
      build(random) {
        const own = random.pick(family);
        const { request, reply } = own.misses(random);
        return { request, tools: offered(random, own, family), turns: [() => answer(reply)] };
      },
    },
  ];
}

export const OWN_TOOL_RECIPES: readonly Recipe[] = ownToolRecipes(OWN_TOOLS, { call: "own-tool-call", mismatch: "own-tool-mismatch" }, { call: 3, mismatch: 5 });
