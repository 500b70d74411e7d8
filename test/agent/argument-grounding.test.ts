import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { cutFigure, groundedNumberChoices, holdNumberParameters, repeatedOptionalValues, runawayFigure, ungroundedAnswer, ungroundedArguments } from "../../src/agent/argument-grounding.js";
import type { Profile } from "../../src/apps/profile.js";
import { fenceUntrusted } from "../../src/policy/fence.js";
import type { JsonSchema, ToolSpec } from "../../src/model/types.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { defineTool } from "../../src/tools/tool.js";
import { ToolBox } from "../../src/tools/toolbox.js";
import { freshNotesProfile, notesOf } from "./fixtures/notes-app.js";

const stockSchema: JsonSchema = {
  type: "object",
  properties: {
    symbol: { type: "string", description: "Ticker symbol, e.g. AAPL" },
    exchange: { type: "string", enum: ["NYSE", "NASDAQ"] },
    currency: { type: "string", description: "Currency code. Default is 'USD'." },
    days: { type: "integer", default: 30 },
  },
  required: ["symbol"],
};

function guessed(args: Record<string, unknown>, userText: string, results: string[] = [], schema: JsonSchema = stockSchema): string[] {
  return ungroundedArguments(args, schema, { userText, results }).map((value) => value.path);
}

describe("argument grounding", () => {
  it("takes no figure from a fence's random boundary or line marks, only from the content inside", () => {
    const parameters: JsonSchema = { type: "object", properties: { amount: { type: "number" } } };
    const result = fenceUntrusted("Your share is 42 EUR.", { source: "an email", boundary: "ab5cdef0" }).text;
    expect(ungroundedArguments({ amount: 5 }, parameters, { userText: "How much do I owe?", results: [result] })).toEqual([{ path: "amount", value: 5 }]);
    expect(ungroundedArguments({ amount: 42 }, parameters, { userText: "How much do I owe?", results: [result] })).toEqual([]);
  });

  it("refuses a value nothing in the conversation carries, even one the description gives as an example", () => {
    expect(guessed({ symbol: "AAPL" }, "How do I bake sourdough bread?")).toEqual(["symbol"]);
    expect(guessed({ symbol: "Tesla" }, "What is Tesla trading at?")).toEqual([]);
  });

  it("takes a value from an earlier result, the user's earlier words, or the schema's own choices and defaults", () => {
    expect(guessed({ symbol: "NVDA" }, "and the other one?", ['{"result":{"watchlist":["NVDA","AMD"]}}'])).toEqual([]);
    expect(guessed({ symbol: "AMD", exchange: "NASDAQ", currency: "USD", days: 30 }, "price of AMD")).toEqual([]);
    expect(guessed({ symbol: "AMD", currency: "EUR" }, "price of AMD")).toEqual(["currency"]);
  });

  it("takes a choice a description lists, as it takes an enum's", () => {
    const reaction: JsonSchema = {
      type: "object",
      properties: { reaction: { type: "string", description: 'like, love, laugh, wow, sad or thanks, or the emoji itself, e.g. "like".' } },
    };
    expect(guessed({ reaction: "like" }, "give Ana's last message a thumbs up", [], reaction)).toEqual([]);
    expect(guessed({ reaction: "love" }, "put a heart on it", [], reaction)).toEqual([]);
    expect(guessed({ reaction: "angry" }, "put a heart on it", [], reaction)).toEqual(["reaction"]);
    const colour: JsonSchema = { type: "object", properties: { colour: { type: "string", description: "The colour, one of: red, green or blue." } } };
    expect(guessed({ colour: "green" }, "paint it", [], colour)).toEqual([]);
    // Prose is no list: "zone of the date" is not "one of", and several words make a kind, not a choice.
    const zone: JsonSchema = { type: "object", properties: { zone: { type: "string", description: "IANA zone of the date, when not yours." }, to: { type: "string", description: "Contact name, phone or conversation id." } } };
    expect(guessed({ zone: "date", to: "phone" }, "call me", [], zone)).toEqual(["zone", "to"]);
  });

  it("matches words loosely: case, plurals, one word starting the other, a word inside a longer value", () => {
    expect(guessed({ symbol: "Dentist appointment" }, "add the dentist on Friday")).toEqual([]);
    expect(guessed({ symbol: "groceries" }, "what's on my grocery list")).toEqual([]);
    expect(guessed({ symbol: "running late, be there soon" }, "tell Sam I'm running late")).toEqual([]);
  });

  it("reads numbers as figures, words, and the same quantity in minutes, percent or thousands", () => {
    const schema: JsonSchema = { type: "object", properties: { amount: { type: "number" }, label: { type: "string" } } };
    expect(guessed({ amount: 87 }, "set a timer for 87 minutes", [], schema)).toEqual([]);
    expect(guessed({ amount: 1500 }, "send $1,500 to Ana", [], schema)).toEqual([]);
    expect(guessed({ amount: 12 }, "a dozen eggs", [], schema)).toEqual([]);
    expect(guessed({ amount: 120 }, "remind me in 2 hours", [], schema)).toEqual([]);
    expect(guessed({ amount: 0.05 }, "a 5% tip", [], schema)).toEqual([]);
    expect(guessed({ amount: 1 }, "set an alarm", [], schema)).toEqual([]);
    expect(guessed({ amount: 42 }, "set an alarm", [], schema)).toEqual(["amount"]);
    expect(guessed({ label: "4" }, "alarm number four", [], schema)).toEqual([]);
    expect(guessed({ label: "Room 7" }, "book a room", [], schema)).toEqual(["label"]);
  });

  it("reads figures in scientific notation, times a power of ten, and with a scale word", () => {
    const schema: JsonSchema = { type: "object", properties: { amount: { type: "number" }, label: { type: "string" } } };
    expect(guessed({ amount: 1e-9 }, "two charges of 1e-9 and 2E-9 coulomb", [], schema)).toEqual([]);
    expect(guessed({ amount: 2e-9 }, "two charges of 1e-9 and 2E-9 coulomb", [], schema)).toEqual([]);
    expect(guessed({ label: "1e-9" }, "a charge of 1e-9", [], schema)).toEqual([]);
    expect(guessed({ amount: 300000000 }, "light moves at 3 x 10^8 m/s", [], schema)).toEqual([]);
    expect(guessed({ amount: 1.6e-19 }, "a charge of 1.6×10^-19 C", [], schema)).toEqual([]);
    expect(guessed({ amount: 5000000 }, "a loan of 5 million", [], schema)).toEqual([]);
    expect(guessed({ amount: 2500000000 }, "2.5 billion people", [], schema)).toEqual([]);
    // The exponent is read as part of the figure, not as a figure of its own.
    expect(guessed({ amount: 9 }, "a charge of 1e-9", [], schema)).toEqual(["amount"]);
    expect(guessed({ amount: 500000000 }, "falling for 5 seconds", [], schema)).toEqual(["amount"]);
  });

  it("reads numbers spoken in several words, a count in the unit below, currencies by name and long numbers in another layout", () => {
    const number = (value: number, userText: string) => ungroundedArguments({ value }, { type: "object", properties: { value: { type: "number" } } }, { userText, results: [] });
    const text = (value: string, userText: string) => ungroundedArguments({ value }, { type: "object", properties: { value: { type: "string" } } }, { userText, results: [] });
    expect(number(60, "reorder at five dozen cups")).toEqual([]);
    expect(number(240, "order twenty dozen at a time")).toEqual([]);
    expect(number(25, "twenty five people")).toEqual([]);
    expect(number(5.5, "five and a half minutes a kilometre")).toEqual([]);
    expect(number(330, "five and a half minutes a kilometre")).toEqual([]);
    expect(number(210, "in about three and a half hours")).toEqual([]);
    expect(number(2.25, "2 and a quarter cups")).toEqual([]);
    expect(number(0.75, "three quarters of a cup")).toEqual([]);
    expect(number(60, "paid back over 5 years")).toEqual([]);
    expect(number(21, "for three weeks")).toEqual([]);
    // Not any product: a count takes the unit written after it only.
    expect(number(35, "5 apples and 7 pears")).toHaveLength(1);
    expect(number(61, "paid back over 5 years")).toHaveLength(1);
    expect(text("JPY", "the euro to Japanese yen rate")).toEqual([]);
    expect(text("EUR", "the euro to Japanese yen rate")).toEqual([]);
    expect(text("GBP", "the euro to Japanese yen rate")).toHaveLength(1);
    expect(text("CHF", "a Swiss watch")).toHaveLength(1);
    expect(text("985141002345678", "the chip number is 985 141 002 345 678")).toEqual([]);
    expect(text("+447700900456", "my mobile is 07700 900456")).toEqual([]);
    expect(text("+447700900457", "my mobile is 07700 900456")).toHaveLength(1);
    expect(text("985141002345670", "the chip number is 985 141 002 345 678")).toHaveLength(1);
  });

  it("reads a list written without spaces as its figures, and how often a year a frequency word says", () => {
    const schema: JsonSchema = { type: "object", properties: { values: { type: "array", items: { type: "number" } }, periods: { type: "integer" } } };
    expect(guessed({ values: [17, 29, 4] }, "the scores were [17,29,4]", [], schema)).toEqual([]);
    expect(guessed({ values: [17294] }, "the scores were [17,29,4]", [], schema)).toEqual(["values[0]"]);
    expect(guessed({ values: [2500] }, "a budget of 2,500", [], schema)).toEqual([]);
    expect(guessed({ periods: 4 }, "interest compounded quarterly", [], schema)).toEqual([]);
    expect(guessed({ periods: 12 }, "paid monthly", [], schema)).toEqual([]);
  });

  it("leaves dates and times to the date check, and booleans, nulls and stop words alone", () => {
    const schema: JsonSchema = { type: "object", properties: {} };
    expect(guessed({ date: "2026-12-04", time: "15:00", at: "2026-12-04T15:00:00Z", on: true, note: null, with: "the" }, "dentist Friday", [], schema)).toEqual([]);
    // Dates in another order or with other separators are dates too ("October 26, 2027" as the tool's DD/MM/YYYY).
    expect(guessed({ date: "26/10/2027", due: "10-26-2027", month: "10/2027" }, "on October 26, 2027", [], schema)).toEqual([]);
  });

  it("walks arrays and objects and says where each guess is", () => {
    const schema: JsonSchema = { type: "object", properties: {} };
    expect(guessed({ items: ["milk", "caviar"], address: { city: "Lisbon", street: "Rua Augusta" } }, "add milk to the list and ship to Lisbon", [], schema)).toEqual([
      "items[1]",
      "address.street",
    ]);
  });

  it("asks for what is missing by the parameters' names, never repeating the guesses", () => {
    const answer = ungroundedAnswer("determine_body_mass_index", [{ path: "weight", value: 70 }, { path: "height_cm", value: 180 }]);
    expect(answer).toBe(
      "I did not run determine_body_mass_index: I could not find its weight and height cm in what you said, and I will not guess them. Tell me the weight and height cm, or ask me something else.",
    );
    expect(answer).not.toContain("70");
  });
});

describe("optional values that repeat another value of the call", () => {
  const scale: JsonSchema = {
    type: "object",
    properties: {
      key: { type: "string", description: "The key" },
      scale_type: { type: "string", description: "Type of scale" },
      mode: { type: "string", enum: ["major", "minor"] },
      label: { type: "string", description: "A label. Default is 'C'." },
    },
    required: ["key"],
  };

  it("leaves out an optional copy of another value, whatever the order it was written in, and keeps the first holder", () => {
    expect(repeatedOptionalValues({ key: "C", scale_type: "C" }, scale)).toEqual(["scale_type"]);
    expect(repeatedOptionalValues({ scale_type: " c ", key: "C" }, scale)).toEqual(["scale_type"]);
    // Two optional copies of one value: the schema's first keeps it.
    expect(repeatedOptionalValues({ key: "D", scale_type: "Dorian", label: "Dorian" }, { ...scale, properties: { ...(scale.properties as Record<string, JsonSchema>), label: { type: "string" } } })).toEqual(["label"]);
  });

  it("never touches a required value, a value the parameter's own schema lists, a part of another value, or other types", () => {
    expect(repeatedOptionalValues({ key: "minor", mode: "minor" }, scale)).toEqual([]);
    expect(repeatedOptionalValues({ key: "C", label: "C" }, scale)).toEqual([]);
    expect(repeatedOptionalValues({ key: "C major", scale_type: "C" }, scale)).toEqual([]);
    expect(repeatedOptionalValues({ key: "4", scale_type: 4 as unknown as string }, scale)).toEqual([]);
    const both: JsonSchema = { type: "object", properties: { from: { type: "string" }, to: { type: "string" } }, required: ["from", "to"] };
    expect(repeatedOptionalValues({ from: "Lyon", to: "Lyon" }, both)).toEqual([]);
  });

  it("does not carry a date the model wrote into a parameter that is not about a day, for a request that names no day", () => {
    const stats: JsonSchema = {
      type: "object",
      properties: { player_name: { type: "string" }, season: { type: "string", description: "The season to get statistics for." }, date: { type: "string" }, when: { type: "string", description: "Match day." } },
      required: ["player_name", "season"],
    };
    const source = (userText: string, results: string[] = []) => ({ userText, results });
    expect(ungroundedArguments({ player_name: "LeBron James", season: "2026-12-01" }, stats, source("What is LeBron James's assist average?"))).toEqual([{ path: "season", value: "2026-12-01" }]);
    // A parameter about a day, a request naming a day, or a date the conversation writes: date grounding's, or carried.
    expect(ungroundedArguments({ player_name: "LeBron James", date: "2026-12-01" }, stats, source("What is LeBron James's assist average?"))).toEqual([]);
    expect(ungroundedArguments({ player_name: "LeBron James", season: "2026-12-01" }, stats, source("LeBron James's assists since last Monday"))).toEqual([]);
    expect(ungroundedArguments({ player_name: "LeBron James", season: "2026-12-01" }, stats, source("LeBron James's assists", ["season starts 2026-12-01"]))).toEqual([]);
    expect(ungroundedArguments({ player_name: "LeBron James", when: "2026-12-01" }, stats, source("LeBron James's assists"))).toEqual([]);
  });

  it("leaves out an optional copy of a number the request writes once, and keeps numbers written twice, 0 and 1", () => {
    const camp: JsonSchema = {
      type: "object",
      properties: { park: { type: "string" }, nights: { type: "integer" }, nightly_price_cap: { type: "number" }, page: { type: "integer" } },
      required: ["park", "nights"],
    };
    expect(repeatedOptionalValues({ park: "Yosemite", nights: 3, nightly_price_cap: 3 }, camp, "A campsite in Yosemite for 3 nights.")).toEqual(["nightly_price_cap"]);
    expect(repeatedOptionalValues({ park: "Yosemite", nights: 3, nightly_price_cap: 3 }, camp, "A campsite in Yosemite for three nights.")).toEqual(["nightly_price_cap"]);
    expect(repeatedOptionalValues({ park: "Yosemite", nights: 3, nightly_price_cap: 3 }, camp, "3 nights in Yosemite, at most 3 dollars a night")).toEqual([]);
    expect(repeatedOptionalValues({ park: "Yosemite", nights: 1, page: 1 }, camp, "one night in Yosemite")).toEqual([]);
    // Without the request, numbers are not judged.
    expect(repeatedOptionalValues({ park: "Yosemite", nights: 3, nightly_price_cap: 3 }, camp)).toEqual([]);
  });

  it("runs the call without the copy, as it runs one without a guessed optional value", async () => {
    const profile = freshNotesProfile();
    try {
      const ran: Record<string, unknown>[] = [];
      const lookup = defineTool({
        name: "gene_lookup",
        description: "Look up a gene.",
        input: z.object({ gene: z.string(), species: z.string().optional() }),
        risk: "read",
        run: (input) => {
          ran.push(input);
          return { found: true };
        },
      });
      const model = new ScriptedModel([{ toolCalls: [{ name: "gene_lookup", arguments: { gene: "BRCA1", species: "BRCA1" } }] }, "Found it."]);
      const outcome = await new Agent({ model, profile, toolbox: new ToolBox([lookup]) }).run("look up the gene BRCA1").outcome;
      expect(outcome.calls[0]).toMatchObject({ status: "ok", call: { arguments: { gene: "BRCA1" } } });
      expect(ran).toEqual([{ gene: "BRCA1" }]);
    } finally {
      profile.close();
    }
  });
});

describe("number holding", () => {
  it("finds the figure a number ran away from: one written figure, then four digits or more", () => {
    expect(runawayFigure(500000000, "falling for 5 seconds")).toBe(5);
    expect(runawayFigure(4000000010000004, "how far is 4 light years")).toBe(4);
    expect(runawayFigure(9.800001, "an acceleration of 9.8")).toBe(9.8);
    expect(runawayFigure(-30000, "a drop of -3 degrees")).toBe(-3);
    expect(runawayFigure(700000, "over the next seven years")).toBe(7);
    expect(runawayFigure(330000, "the list [33,41]")).toBe(33);
    // Three digits more is a factor of 1000, which grounding judges; two figures that fit are ambiguous; none, nothing.
    expect(runawayFigure(5000, "falling for 5 seconds")).toBeUndefined();
    expect(runawayFigure(500000000, "5 apples and 50 pears")).toBeUndefined();
    expect(runawayFigure(42000000, "set an alarm")).toBeUndefined();
    expect(runawayFigure(51000000, "falling for 5 seconds")).toBeUndefined();
  });

  it("finds the grouped figure a number was cut from at its first comma", () => {
    expect(cutFigure(320, "The flat costs 320,000 and rents for 1,450 a month")).toBe(320000);
    expect(cutFigure(1, "the sales tax on a 1,899 purchase at 8.25%")).toBe(1899);
    expect(cutFigure(2, "a shareholder's equity of 2,000,000.50")).toBe(2000000.5);
    expect(cutFigure(-12, "a loss of -12,500")).toBe(-12500);
    // A comma after the figure ends the clause, not the figure.
    expect(cutFigure(36, "cost 36,000, useful life 6 years")).toBe(36000);
    // The evidence writes the number on its own, no grouped figure starts with it, two do, or it is no whole number: nothing.
    expect(cutFigure(3, "3 pallets, 3,200 kg")).toBeUndefined();
    expect(cutFigure(3, "three pallets, 3,200 kg")).toBeUndefined();
    expect(cutFigure(32, "320,000")).toBeUndefined();
    expect(cutFigure(1, "between 1,200 and 1,500")).toBeUndefined();
    expect(cutFigure(1.5, "1,500")).toBeUndefined();
    expect(cutFigure(450, "under 450000")).toBeUndefined();
  });

  it("runs a call with a number cut at a comma as the figure the user wrote, unless the parameter counts in thousands", async () => {
    const profile = freshNotesProfile();
    try {
      const ran: Record<string, unknown>[] = [];
      const estimate = defineTool({
        name: "rental_yield",
        description: "Net yield of a rental.",
        input: z.object({ price: z.number(), monthly_rent: z.number(), budget_k: z.number().describe("Budget in thousands").optional() }),
        risk: "read",
        run: (input) => {
          ran.push(input);
          return { yield: 0.05 };
        },
      });
      const model = new ScriptedModel([{ toolCalls: [{ name: "rental_yield", arguments: { price: 320, monthly_rent: 1450, budget_k: 350 } }] }, "About 5%."]);
      const outcome = await new Agent({ model, profile, toolbox: new ToolBox([estimate]) }).run("The flat costs 320,000 and rents for 1,450 a month; my budget is 350,000.").outcome;
      expect(outcome.calls[0]).toMatchObject({ status: "ok", call: { arguments: { price: 320000, monthly_rent: 1450, budget_k: 350 } } });
      expect(ran).toEqual([{ price: 320000, monthly_rent: 1450, budget_k: 350 }]);
    } finally {
      profile.close();
    }
  });

  it("offers every number grounding accepts, and nothing when the conversation writes no number", () => {
    const choices = groundedNumberChoices({ userText: "Light from a star 4 light years away, in 1.5 hours?", results: [] })!;
    for (const value of [0, 1, 4, 240, 0.04, 4000, 0.004, 1.5, 90, 150, 1500, 0.0015]) expect(choices).toContain(value);
    expect(choices).not.toContain(4000000010000004);
    // Every choice passes the grounding check, and a figure it is not offered fails it.
    const schema: JsonSchema = { type: "object", properties: { n: { type: "number" } } };
    for (const value of choices) expect(ungroundedArguments({ n: value }, schema, { userText: "Light from a star 4 light years away, in 1.5 hours?", results: [] })).toEqual([]);
    expect(groundedNumberChoices({ userText: "set a timer", results: [] })).toBeUndefined();
    expect(groundedNumberChoices({ userText: "an hour, please", results: [] })).toContain(60);
    expect(groundedNumberChoices({ userText: "take one", results: ["[1, 0]"] })).toBeUndefined();
  });

  it("holds free number parameters to the choices: integers for integers, within bounds, the default kept; other parameters untouched", () => {
    const spec: ToolSpec = {
      name: "trip",
      description: "Plan a trip.",
      parameters: {
        type: "object",
        properties: {
          days: { type: "integer", minimum: 1, maximum: 100, description: "Days." },
          budget: { type: "number", default: 500 },
          stars: { type: "integer", enum: [3, 4, 5] },
          city: { type: "string" },
          stops: { type: "array", items: { type: "number" } },
        },
        required: ["days"],
      },
    };
    const [held] = holdNumberParameters([spec], groundedNumberChoices({ userText: "5 days in Rome for 1.5 thousand", results: [] }));
    const properties = held!.parameters.properties as Record<string, Record<string, unknown>>;
    // 5 and 10 (1,000 ÷ 100), 24 ("days"), 90 (1.5 × 60), 2 (5 days are 120 hours, ÷ 60), 15 and 25 (1.5 thousand ÷ 100 and ÷ 60), 1;
    // not 0 (below the minimum), 1.5 (no integer) or 300 (above the maximum).
    expect(properties.days).toEqual({ type: "integer", description: "Days.", enum: [1, 2, 5, 10, 15, 24, 25, 90] });
    expect(properties.budget!.enum).toEqual(expect.arrayContaining([0, 1, 1.5, 5, 500, 1000, 1500]));
    expect(properties.budget!.default).toBe(500);
    expect(properties.stars).toEqual({ type: "integer", enum: [3, 4, 5] });
    expect(properties.city).toEqual({ type: "string" });
    expect((properties.stops!.items as Record<string, unknown>).enum).toContain(1.5);
    // Nothing to hold to: the same objects back.
    const specs = [spec];
    expect(holdNumberParameters(specs, undefined)).toBe(specs);
    const words: ToolSpec = { name: "say", description: "Say.", parameters: { type: "object", properties: { text: { type: "string" } } } };
    expect(holdNumberParameters([words], [0, 1, 5])[0]).toBe(words);
  });

  it("makes the agent's call grammar offer only those numbers when on, and leaves it free by default", async () => {
    const profile = freshNotesProfile();
    try {
      const timer = defineTool({ name: "start_timer", description: "Start a timer.", input: z.object({ minutes: z.number() }), risk: "write", run: () => ({ started: true }) });
      const script = (): ScriptedModel => new ScriptedModel([{ toolCalls: [{ name: "start_timer", arguments: { minutes: 20 } }] }, "Started."]);
      const held = script();
      await new Agent({ model: held, profile, toolbox: new ToolBox([timer]), numberHolding: true }).run("timer for 20 minutes").outcome;
      const callable = held.requests[0]!.callableTools!.find((tool) => tool.name === "start_timer")!;
      expect((callable.parameters.properties as Record<string, Record<string, unknown>>).minutes!.enum).toEqual(expect.arrayContaining([0, 1, 20, 1200, 0.2]));
      const free = script();
      await new Agent({ model: free, profile, toolbox: new ToolBox([timer]) }).run("timer for 20 minutes").outcome;
      const form = (free.requests[0]!.callableTools ?? free.requests[0]!.tools)!.find((tool) => tool.name === "start_timer")!;
      expect((form.parameters.properties as Record<string, Record<string, unknown>>).minutes!.enum).toBeUndefined();
    } finally {
      profile.close();
    }
  });
});

describe("the agent with argument grounding", () => {
  let profile: Profile;
  beforeEach(() => {
    profile = freshNotesProfile();
  });
  afterEach(() => profile.close());

  it("does not run a call with guessed values: the run ends asking, nothing written, the model not asked again", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "add_note", arguments: { text: "Quarterly report draft" } }] }, "unused"]);
    const agent = new Agent({ model, profile });
    const outcome = await agent.run("Add a note").outcome;
    expect(outcome.stopReason).toBe("abstained");
    expect(outcome.calls).toHaveLength(1);
    expect(outcome.calls[0]).toMatchObject({ status: "error", error: { code: "ungrounded_arguments" } });
    expect(outcome.calls[0]!.error!.message).toContain('text ("Quarterly report draft")');
    expect(outcome.answer).toBe("I did not run add_note: I could not find its text in what you said, and I will not guess it. Tell me the text, or ask me something else.");
    expect(notesOf(profile)).toEqual([]);
    expect(model.requests).toHaveLength(1);
  });

  it("runs the same call when the request carries the value, and when the option is off", async () => {
    const grounded = new Agent({ model: new ScriptedModel([{ toolCalls: [{ name: "add_note", arguments: { text: "Quarterly report draft" } }] }, "Added."]), profile });
    expect((await grounded.run("Add a note: quarterly report draft").outcome).calls[0]!.status).toBe("ok");
    const off = new Agent({ model: new ScriptedModel([{ toolCalls: [{ name: "add_note", arguments: { text: "Shopping" } }] }, "Added."]), profile, argumentGrounding: false });
    expect((await off.run("Add a note").outcome).calls[0]!.status).toBe("ok");
    expect(notesOf(profile).map((note) => note.text)).toEqual(["Quarterly report draft", "Shopping"]);
  });

  it("runs a call whose only guess is an optional value without it, on the tool's default", async () => {
    const set: Record<string, unknown>[] = [];
    const alarm = defineTool({
      name: "set_alarm",
      description: "Set an alarm.",
      input: z.object({ time: z.string(), label: z.string().optional() }),
      risk: "write",
      run: (input) => {
        set.push(input);
        return { set: true };
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "set_alarm", arguments: { time: "07:00", label: "Gym" } }] }, "Set for 7."]);
    const outcome = await new Agent({ model, profile, toolbox: new ToolBox([alarm]) }).run("wake me at 7").outcome;
    expect(outcome.stopReason).toBe("answered");
    expect(outcome.calls[0]).toMatchObject({ status: "ok", call: { arguments: { time: "07:00" } } });
    expect(set).toEqual([{ time: "07:00" }]);
  });

  it("runs a call whose number ran away past the figure the user wrote with that figure, and refuses one that did not", async () => {
    const ran: Record<string, unknown>[] = [];
    const speed = defineTool({
      name: "final_speed",
      description: "The speed of a falling object.",
      input: z.object({ time: z.number().int() }),
      risk: "read",
      run: (input) => {
        ran.push(input);
        return { speed: 49 };
      },
    });
    const toolbox = new ToolBox([speed]);
    const runaway = new ScriptedModel([{ toolCalls: [{ name: "final_speed", arguments: { time: 500000000 } }] }, "49 m/s."]);
    const outcome = await new Agent({ model: runaway, profile, toolbox }).run("How fast after falling for 5 seconds?").outcome;
    expect(outcome.calls[0]).toMatchObject({ status: "ok", call: { arguments: { time: 5 } } });
    const guess = new ScriptedModel([{ toolCalls: [{ name: "final_speed", arguments: { time: 420000 } }] }, "unused"]);
    const refused = await new Agent({ model: guess, profile, toolbox }).run("How fast after falling for 5 seconds?").outcome;
    expect(refused.calls[0]).toMatchObject({ status: "error", error: { code: "ungrounded_arguments" } });
    expect(ran).toEqual([{ time: 5 }]);
  });
});
