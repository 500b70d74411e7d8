import { z } from "zod";
import type { SeededRandom } from "./random.js";
import type { Recipe } from "./recipes.js";
import { ownToolRecipes, readTool, round, shown, type OwnTool } from "./own-tool-recipes.js";

/**
 * The user's own tools whose descriptions say what form a value takes, with
 * requests that give the value in another form: a rate "as a decimal" asked
 * for as "4%", a date "in DD/MM/YYYY" asked for as "March 3, 2027", a unit
 * code asked for as "Fahrenheit", a count a year asked for as "quarterly", a
 * list written "4, 8, 15 and 16", figures written "2.5 million", "3e-6" or
 * "seven". An optional parameter is filled only when the request says it (a
 * distance "in miles"; no unit, no `unit`). As in `own-tool-recipes.ts`, each
 * tool has near misses answered in words, and the tools are offered one to
 * three at a time.
 */

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const CITY_DISTANCES_KM: Record<string, number> = { "Lyon|Turin": 310, "Porto|Madrid": 560, "Graz|Vienna": 190, "Leeds|Glasgow": 350, "Kraków|Prague": 540, "Valencia|Seville": 650 };
const pad = (value: number): string => String(value).padStart(2, "0");
const ordinal = (day: number): string => `${day}${day % 10 === 1 && day !== 11 ? "st" : day % 10 === 2 && day !== 12 ? "nd" : day % 10 === 3 && day !== 13 ? "rd" : "th"}`;

/** A day in 2027 with its parts and the ways a person writes it. */
function futureDay(random: SeededRandom): { day: number; month: number; year: number; spoken: string } {
  const [month, day, year] = [random.integer(1, 12), random.integer(13, 28), 2027];
  const name = MONTHS[month - 1]!;
  const spoken = random.pick([`${name} ${day}, ${year}`, `${day} ${name} ${year}`, `the ${ordinal(day)} of ${name} ${year}`, `${year}-${pad(month)}-${pad(day)}`]);
  return { day, month, year, spoken };
}

/** A percentage as people write it. */
function percentWritten(random: SeededRandom, percent: number): string {
  return random.pick([`${percent}%`, `${percent} percent`, `${percent} per cent`]);
}

const NUMBER_WORDS = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];

const OWN_FORM_TOOLS: readonly OwnTool[] = [
  {
    tool: readTool(
      "savings_growth",
      "What savings grow to with interest added once a year.",
      z.object({
        deposit: z.number().describe("Amount saved at the start"),
        annual_rate: z.number().describe("Yearly interest rate as a decimal, e.g. 0.03 for 3%"),
        years: z.number().int().describe("How many years"),
      }),
      (args) => ({ balance: round(Number(args.deposit) * (1 + Number(args.annual_rate)) ** Number(args.years)) }),
    ),
    fits(random) {
      const deposit = random.pick([500, 2_000, 7_500, 12_000, 40_000]);
      const percent = random.pick([1.5, 2, 3, 4, 4.5, 6]);
      const years = random.integer(2, 12);
      const spokenYears = random.pick([String(years), NUMBER_WORDS[years]!]);
      return {
        request: random.pick([
          `If I put ${deposit} in a savings account at ${percentWritten(random, percent)} a year, what will I have after ${spokenYears} years?`,
          `savings of ${deposit} growing ${percentWritten(random, percent)} yearly for ${spokenYears} years: how much at the end`,
          `what does ${deposit} become in ${spokenYears} years at an interest rate of ${percent}%`,
        ]),
        args: { deposit, annual_rate: round(percent / 100, 4), years },
        done: (value) => `After ${years} years you would have about ${shown((value as { balance: number }).balance)}.`,
      };
    },
    misses(random) {
      const [deposit, percent] = [random.pick([800, 3_000, 10_000]), random.pick([2, 3, 5])];
      return random.pick([
        { request: `how much interest does ${deposit} earn in one month at ${percent}% a year`, reply: `About ${shown((deposit * percent) / 100 / 12)}: a year's interest, ${shown((deposit * percent) / 100)}, divided by 12.` },
        { request: `which bank pays the best savings rate right now`, reply: "I can't compare banks' rates: the tool I have only works out what savings grow to at a rate you give it." },
        { request: `open a savings account with ${deposit} for me`, reply: "I can't open accounts: the tool I have only works out how savings grow." },
      ]);
    },
  },
  {
    tool: readTool(
      "compound_balance",
      "Balance of a deposit after compound interest.",
      z.object({
        principal: z.number().describe("The amount deposited"),
        rate_percent: z.number().describe("Yearly interest rate in percent, e.g. 4 for 4%"),
        years: z.number().describe("How many years"),
        periods_per_year: z.number().int().optional().describe("How many times a year interest is added (default 1)"),
      }),
      (args) => {
        const periods = Number(args.periods_per_year ?? 1);
        return { balance: round(Number(args.principal) * (1 + Number(args.rate_percent) / 100 / periods) ** (periods * Number(args.years))) };
      },
    ),
    fits(random) {
      const principal = random.pick([1_000, 2_500, 6_000, 15_000]);
      const rate = random.pick([2, 3.5, 5, 7]);
      const years = random.integer(2, 10);
      const frequency = random.pick([
        { words: "", periods: undefined },
        { words: " compounded monthly", periods: 12 },
        { words: " compounded quarterly", periods: 4 },
        { words: " with interest added twice a year", periods: 2 },
        { words: " compounded weekly", periods: 52 },
      ]);
      return {
        request: random.pick([
          `What is ${principal} worth after ${years} years at ${rate}%${frequency.words}?`,
          `balance of a ${principal} deposit, ${rate} percent a year${frequency.words}, after ${years} years`,
          `work out ${principal} at ${rate}% for ${years} years${frequency.words}`,
        ]),
        args: { principal, rate_percent: rate, years, ...(frequency.periods !== undefined ? { periods_per_year: frequency.periods } : {}) },
        done: (value) => `It comes to about ${shown((value as { balance: number }).balance)}.`,
      };
    },
    misses(random) {
      const [principal, rate] = [random.pick([1_000, 5_000]), random.pick([3, 4, 6])];
      return random.pick([
        { request: `what's simple interest on ${principal} at ${rate}% for 2 years`, reply: `Simple interest is ${principal} × ${rate}% × 2 = ${shown((principal * rate * 2) / 100)}.` },
        { request: `what does compound interest mean`, reply: "Compound interest is interest earned on earlier interest as well as on the deposit, so the balance grows faster each period." },
        { request: `move ${principal} into my deposit account`, reply: "I can't move money: the tool I have only works out compound interest." },
      ]);
    },
  },
  {
    tool: readTool(
      "permit_renewal_slot",
      "Checks whether a renewal appointment for a residence permit is free on a day.",
      z.object({
        permit_number: z.string().describe("The permit's number"),
        date: z.string().describe("Appointment day in DD/MM/YYYY format"),
      }),
      (args) => ({ permit_number: args.permit_number, date: args.date, free_slots: ["09:30", "11:00", "14:15"] }),
    ),
    fits(random) {
      const permit = `RP-${random.integer(10_000, 99_999)}`;
      const { day, month, year, spoken } = futureDay(random);
      return {
        request: random.pick([
          `Is there a renewal slot for permit ${permit} on ${spoken}?`,
          `check appointments on ${spoken} to renew permit ${permit}`,
          `can I renew my residence permit ${permit} on ${spoken}`,
        ]),
        args: { permit_number: permit, date: `${pad(day)}/${pad(month)}/${year}` },
        done: () => `Yes: slots are free at 9:30, 11:00 and 14:15 that day.`,
      };
    },
    misses(random) {
      const permit = `RP-${random.integer(10_000, 99_999)}`;
      return random.pick([
        { request: `what documents do I need to renew permit ${permit}`, reply: "I can't see the document list: the tool I have only checks free renewal slots. The immigration office's site lists what to bring." },
        { request: `cancel my renewal appointment for ${permit}`, reply: "I can't cancel appointments: the tool I have only checks whether slots are free." },
        { request: `how long is a residence permit valid`, reply: "It depends on the country and the kind of permit; the permit itself shows its expiry date." },
      ]);
    },
  },
  {
    tool: readTool(
      "book_return_fee",
      "Late fee for a library book from its due date and the day it came back.",
      z.object({
        due_date: z.string().describe("When the book was due, MM-DD-YYYY"),
        returned_date: z.string().describe("When it was returned, MM-DD-YYYY"),
      }),
      (args) => {
        const parse = (text: unknown): number => {
          const [month, day, year] = String(text).split("-").map(Number);
          return Date.UTC(year!, month! - 1, day!);
        };
        const days = Math.max(0, Math.round((parse(args.returned_date) - parse(args.due_date)) / 86_400_000));
        if (Number.isNaN(days)) throw new Error("Give both dates as MM-DD-YYYY.");
        return { days_late: days, fee: round(days * 0.25) };
      },
    ),
    fits(random) {
      const due = futureDay(random);
      const late = random.integer(1, 12);
      const back = new Date(Date.UTC(due.year, due.month - 1, due.day + late));
      const backSpoken = `${MONTHS[back.getUTCMonth()]} ${back.getUTCDate()}, ${back.getUTCFullYear()}`;
      return {
        request: random.pick([
          `My library book was due ${due.spoken} and I returned it ${backSpoken}. What's the fine?`,
          `late fee for a book due on ${due.spoken}, brought back on ${backSpoken}`,
        ]),
        args: { due_date: `${pad(due.month)}-${pad(due.day)}-${due.year}`, returned_date: `${pad(back.getUTCMonth() + 1)}-${pad(back.getUTCDate())}-${back.getUTCFullYear()}` },
        done: (value) => `It was ${(value as { days_late: number }).days_late} days late: the fee is ${shown((value as { fee: number }).fee)}.`,
      };
    },
    misses(random) {
      const days = random.integer(3, 20);
      return random.pick([
        { request: `renew my library books for ${days} more days`, reply: "I can't renew loans: the tool I have only works out late fees." },
        { request: `when does the library close on Saturdays`, reply: "I can't see the library's opening hours with the tool I have; its website or the front desk will say." },
        { request: `how many days late is a book ${days} days overdue`, reply: `It is ${days} days late.` },
      ]);
    },
  },
  {
    tool: readTool(
      "convert_temperature",
      "Converts a temperature between scales.",
      z.object({
        value: z.number().describe("The temperature"),
        from_unit: z.enum(["C", "F", "K"]).describe("Scale of the value: C, F or K"),
        to_unit: z.enum(["C", "F", "K"]).describe("Scale to convert to: C, F or K"),
      }),
      (args) => {
        const value = Number(args.value);
        const celsius = args.from_unit === "C" ? value : args.from_unit === "F" ? ((value - 32) * 5) / 9 : value - 273.15;
        const out = args.to_unit === "C" ? celsius : args.to_unit === "F" ? (celsius * 9) / 5 + 32 : celsius + 273.15;
        return { value: round(out, 1), unit: args.to_unit };
      },
    ),
    fits(random) {
      const scales = [
        { code: "C", words: ["Celsius", "degrees Celsius", "°C"] },
        { code: "F", words: ["Fahrenheit", "degrees Fahrenheit", "°F"] },
        { code: "K", words: ["kelvin", "K"] },
      ] as const;
      const from = random.pick(scales);
      const to = random.pick(scales.filter((scale) => scale !== from));
      const value = from.code === "K" ? random.integer(250, 320) : random.integer(-10, 95);
      return {
        request: random.pick([
          `What is ${value} ${random.pick(from.words)} in ${random.pick(to.words)}?`,
          `convert ${value} ${random.pick(from.words)} to ${random.pick(to.words)}`,
          `${value} ${random.pick(from.words)}, how much is that in ${random.pick(to.words)}`,
        ]),
        args: { value, from_unit: from.code, to_unit: to.code },
        done: (result) => `That is ${(result as { value: number }).value} ${to.words[0]}.`,
      };
    },
    misses(random) {
      const value = random.integer(5, 35);
      return random.pick([
        { request: `is ${value} degrees Celsius warm enough for the beach`, reply: value >= 24 ? `${value} °C is warm beach weather.` : `${value} °C is on the cool side for the beach.` },
        { request: `what temperature does water boil at on a mountain`, reply: "Lower than 100 °C: about 1 °C less for every 300 m of height." },
        { request: `set the heating to ${value} degrees`, reply: "I can't control the heating: the tool I have only converts temperatures." },
      ]);
    },
  },
  {
    tool: readTool(
      "list_statistics",
      "A summary figure of a list of numbers.",
      z.object({
        values: z.array(z.number()).describe("The numbers"),
        measure: z.enum(["mean", "median", "range"]).optional().describe("Which figure: mean (the default), median or range"),
      }),
      (args) => {
        const values = (args.values as number[]).slice().sort((a, b) => a - b);
        const middle = Math.floor(values.length / 2);
        const figure =
          args.measure === "median"
            ? values.length % 2 === 1
              ? values[middle]!
              : (values[middle - 1]! + values[middle]!) / 2
            : args.measure === "range"
              ? values.at(-1)! - values[0]!
              : values.reduce((sum, value) => sum + value, 0) / values.length;
        return { figure: round(figure) };
      },
    ),
    fits(random) {
      const values = Array.from({ length: random.integer(4, 7) }, () => random.integer(2, 99));
      const written = random.pick([
        `${values.slice(0, -1).join(", ")} and ${values.at(-1)}`,
        `[${values.join(",")}]`,
        values.join(", "),
      ]);
      const measure = random.pick([
        { words: random.pick(["the average of", "the mean of"]), value: undefined },
        { words: "the median of", value: "median" },
        { words: "the range of", value: "range" },
      ]);
      return {
        request: random.pick([`What is ${measure.words} ${written}?`, `work out ${measure.words} these scores: ${written}`]),
        args: { values, ...(measure.value !== undefined ? { measure: measure.value } : {}) },
        done: (value) => `It is ${shown((value as { figure: number }).figure)}.`,
      };
    },
    misses(random) {
      const [a, b] = [random.integer(10, 90), random.integer(10, 90)];
      return random.pick([
        { request: `what's ${a} plus ${b}`, reply: `${a} + ${b} = ${a + b}.` },
        { request: `what does standard deviation tell me`, reply: "It tells you how spread out the numbers are around their mean: small means they sit close together." },
        { request: `sort these from biggest to smallest: ${a}, ${b}, 7`, reply: `${[a, b, 7].sort((x, y) => y - x).join(", ")}.` },
      ]);
    },
  },
  {
    tool: readTool(
      "coulomb_force",
      "Electric force between two point charges.",
      z.object({
        charge_a: z.number().describe("First charge in coulombs"),
        charge_b: z.number().describe("Second charge in coulombs"),
        distance_m: z.number().describe("Distance between them in metres"),
      }),
      (args) => ({ newtons: Number(((8.9875e9 * Math.abs(Number(args.charge_a) * Number(args.charge_b))) / Number(args.distance_m) ** 2).toPrecision(4)) }),
    ),
    fits(random) {
      const [a, b] = [random.integer(1, 9), random.integer(1, 9)];
      const exponent = random.pick([-6, -7, -8, -9]);
      const distance = random.pick([0.05, 0.1, 0.2, 0.5, 2]);
      const write = (mantissa: number): string => random.pick([`${mantissa}e${exponent}`, `${mantissa} x 10^${exponent}`, `${mantissa}×10^${exponent}`]);
      return {
        request: random.pick([
          `Force between charges of ${write(a)} C and ${write(b)} C that are ${distance} m apart?`,
          `two point charges, ${write(a)} and ${write(b)} coulombs, ${distance} metres from each other: what force acts between them`,
        ]),
        args: { charge_a: Number(`${a}e${exponent}`), charge_b: Number(`${b}e${exponent}`), distance_m: distance },
        done: (value) => `The force is about ${(value as { newtons: number }).newtons} N.`,
      };
    },
    misses(random) {
      const distance = random.pick([2, 3, 4]);
      return random.pick([
        { request: `if two charges move ${distance} times further apart, what happens to the force`, reply: `It falls to 1/${distance * distance} of what it was: the force goes with the inverse square of the distance.` },
        { request: `what is the charge of one electron`, reply: "About -1.602 × 10^-19 coulombs." },
        { request: `what's the gravitational pull between the earth and the moon`, reply: "About 2 × 10^20 N; the tool I have works out electric forces between charges, not gravity." },
      ]);
    },
  },
  {
    tool: readTool(
      "town_growth",
      "Projected population of a place after steady yearly growth.",
      z.object({
        population: z.number().int().describe("People living there now"),
        yearly_growth_percent: z.number().describe("Growth per year in percent"),
        years: z.number().int().describe("How many years ahead"),
      }),
      (args) => ({ population: Math.round(Number(args.population) * (1 + Number(args.yearly_growth_percent) / 100) ** Number(args.years)) }),
    ),
    fits(random) {
      const [millions, growth, years] = [random.pick([1.2, 2.5, 3, 4.8]), random.pick([0.5, 1, 1.5, 2.2]), random.integer(3, 12)];
      const population = Math.round(millions * 1_000_000);
      const written = random.pick([`${millions} million`, population.toLocaleString("en-US"), String(population)]);
      const spokenYears = random.pick([String(years), NUMBER_WORDS[years]!]);
      return {
        request: random.pick([
          `A region has ${written} people and grows ${growth}% a year. How many in ${spokenYears} years?`,
          `project a population of ${written} growing by ${growth} percent yearly, ${spokenYears} years out`,
        ]),
        args: { population, yearly_growth_percent: growth, years },
        done: (value) => `About ${shown((value as { population: number }).population)} people.`,
      };
    },
    misses(random) {
      const years = random.integer(3, 9);
      return random.pick([
        { request: `what was the population of Portugal ${years} years ago`, reply: "I can't look up past populations: the tool I have only projects growth from figures you give it." },
        { request: `why do cities grow faster than villages`, reply: "Mostly jobs, schools and services drawing people in, and more young families starting there." },
        { request: `a town grew from 40,000 to 44,000, by what percent`, reply: "By 10%: 4,000 more on 40,000." },
      ]);
    },
  },
  {
    tool: readTool(
      "road_distance",
      "Driving distance between two cities.",
      z.object({
        from: z.string().describe("Starting city"),
        to: z.string().describe("Destination city"),
        unit: z.enum(["km", "mi"]).optional().describe("km (the default) or mi"),
      }),
      (args) => {
        const known = CITY_DISTANCES_KM[`${String(args.from)}|${String(args.to)}`] ?? CITY_DISTANCES_KM[`${String(args.to)}|${String(args.from)}`];
        if (known === undefined) throw new Error(`No road distance between ${String(args.from)} and ${String(args.to)}.`);
        return args.unit === "mi" ? { distance: round(known / 1.609344, 0), unit: "mi" } : { distance: known, unit: "km" };
      },
    ),
    fits(random) {
      const [from, to] = random.shuffle(random.pick(Object.keys(CITY_DISTANCES_KM)).split("|")) as [string, string];
      const unit = random.pick([
        { words: "", value: undefined },
        { words: " in miles", value: "mi" },
        { words: " in kilometres", value: "km" },
      ]);
      return {
        request: random.pick([`How far is it to drive from ${from} to ${to}${unit.words}?`, `road distance ${from} to ${to}${unit.words}`, `driving distance between ${from} and ${to}${unit.words}, please`]),
        args: { from, to, ...(unit.value !== undefined ? { unit: unit.value } : {}) },
        done: (value) => `It is about ${shown((value as { distance: number }).distance)} ${(value as { unit: string }).unit} by road.`,
      };
    },
    misses(random) {
      const [from, to] = random.pick(Object.keys(CITY_DISTANCES_KM)).split("|") as [string, string];
      return random.pick([
        { request: `book me a train from ${from} to ${to}`, reply: "I can't book trains: the tool I have only gives driving distances." },
        { request: `how long is the flight from ${from} to ${to}`, reply: "I can't see flight times with the tool I have; it gives driving distances only." },
        { request: `how many miles is 80 km`, reply: "80 km is about 49.7 miles." },
      ]);
    },
  },
];

/**
 * v5's own-tool recipes: calls whose values take the form the tool's
 * description states, and near misses answered in words; drawn about one
 * example in ten of a v5 build.
 */
export const OWN_FORM_RECIPES: readonly Recipe[] = ownToolRecipes(OWN_FORM_TOOLS, { call: "own-form-call", mismatch: "own-form-mismatch" }, { call: 8, mismatch: 4 });
