import { z } from "zod";
import type { Tool } from "../tools/tool.js";
import type { SeededRandom } from "./random.js";
import { readTool } from "./own-tool-recipes.js";
import { capitalise } from "./replies.js";

/**
 * Tools composed from parts: a domain (what the tool is for, the ways a
 * person opens a request for it) and its slots (the parameters, each with the
 * ways a request gives its value). A domain has several names and several
 * names for each slot, so one domain makes many tools as a person or another
 * program might write them. The values a slot draws are the forms the
 * handwritten tools do not cover often enough: a choice named by a
 * paraphrase ("by bike" for `cycling`), a list written out in the sentence,
 * a name or title copied whole, an optional value given or left out, a flag
 * said in words, a date as people write it.
 */

/** A value for a slot and the clause of the request that gives it. */
export interface Drawn {
  value: unknown;
  clause: string;
}

export interface Slot {
  /** The parameter's names, one drawn per tool (snake case and camel case). */
  names: readonly string[];
  description: string;
  schema: z.ZodType;
  required: boolean;
  draw(random: SeededRandom): Drawn;
}

export interface Domain {
  /** Tool names, one drawn per tool. */
  names: readonly string[];
  description: string;
  /** What it does, as the reply to a request it cannot serve names it ("look up train times"). */
  purpose: string;
  /** How a request for it opens ("find me a hotel"); the slots' clauses follow. */
  leads: readonly string[];
  slots: readonly Slot[];
  /** The tool's result message for the call's arguments (by slot index, so any names work). */
  reply(values: readonly unknown[]): string;
}

/** One tool made from a domain: its definition and the parameter name of each slot. */
export interface ComposedTool {
  domain: Domain;
  tool: Tool;
  parameterNames: string[];
}

export function composeTool(domain: Domain, random: SeededRandom): ComposedTool {
  const name = random.pick(domain.names);
  const parameterNames = domain.slots.map((slot) => random.pick(slot.names));
  const shape: Record<string, z.ZodType> = {};
  domain.slots.forEach((slot, index) => {
    shape[parameterNames[index]!] = slot.required ? slot.schema : slot.schema.optional();
  });
  const tool = readTool(name, domain.description, z.object(shape), (args) => ({
    message: domain.reply(parameterNames.map((parameter) => args[parameter])),
  }));
  return { domain, tool, parameterNames };
}

/** A request for a composed tool and the call that serves it: required slots always, optional ones half the time. */
export function composeRequest(composed: ComposedTool, random: SeededRandom): { request: string; args: Record<string, unknown> } {
  const args: Record<string, unknown> = {};
  const clauses: string[] = [];
  composed.domain.slots.forEach((slot, index) => {
    if (!slot.required && random.next() < 0.5) return;
    const drawn = slot.draw(random);
    args[composed.parameterNames[index]!] = drawn.value;
    clauses.push(drawn.clause);
  });
  const lead = random.pick(composed.domain.leads);
  const body = [lead, ...random.shuffle(clauses)].join(random.pick([" ", " ", ", "])).replace(/ ,/g, ",");
  // An imperative lead ("find me a hotel") takes a polite frame; a question or a statement ("how do I get", "I need a flat") stands as it is.
  const question = /^(how|what|where|which|who|when|any)\b/i.test(lead);
  const statement = /^(i|i'm|i'd|my|we)\b/i.test(lead);
  const frames: ReadonlyArray<(text: string) => string> = question
    ? [(text) => `${capitalise(text)}?`, (text) => text]
    : statement
      ? [(text) => `${capitalise(text)}.`, (text) => text]
      : [
          (text) => `${capitalise(text)}.`,
          (text) => text,
          (text) => `Can you ${text}?`,
          (text) => `Please ${text}`,
          (text) => `I'd like you to ${text}.`,
          (text) => `${capitalise(text)} please`,
        ];
  const framed = random.pick(frames)(body);
  return { request: framed, args };
}

/** "a", "a and b", "a, b and c". */
export function spokenList(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

// Slot makers --------------------------------------------------------------

export function textSlot(names: readonly string[], description: string, required: boolean, pool: readonly string[], clauses: ReadonlyArray<(value: string) => string>): Slot {
  return {
    names,
    description,
    schema: z.string().describe(description),
    required,
    draw(random) {
      const value = random.pick(pool);
      return { value, clause: random.pick(clauses)(value) };
    },
  };
}

export function numberSlot(
  names: readonly string[],
  description: string,
  required: boolean,
  range: { low: number; high: number; step?: number; integer?: boolean },
  clauses: ReadonlyArray<(value: number) => string>,
): Slot {
  const step = range.step ?? 1;
  return {
    names,
    description,
    schema: range.integer === false ? z.number().describe(description) : z.number().int().describe(description),
    required,
    draw(random) {
      const value = Math.round((range.low + step * random.integer(0, Math.floor((range.high - range.low) / step))) * 100) / 100;
      return { value, clause: random.pick(clauses)(value) };
    },
  };
}

/** A choice of fixed members, each given in the request by one of its paraphrases. */
export function choiceSlot(names: readonly string[], description: string, required: boolean, members: Readonly<Record<string, readonly string[]>>): Slot {
  const keys = Object.keys(members) as [string, ...string[]];
  return {
    names,
    description: `${description}: one of ${keys.join(", ")}`,
    schema: z.enum(keys).describe(`${description}: one of ${keys.join(", ")}`),
    required,
    draw(random) {
      const value = random.pick(keys);
      return { value, clause: random.pick(members[value]!) };
    },
  };
}

export function listSlot(
  names: readonly string[],
  description: string,
  required: boolean,
  pool: readonly string[],
  clauses: ReadonlyArray<(list: string) => string>,
  size: { low: number; high: number } = { low: 2, high: 4 },
): Slot {
  return {
    names,
    description,
    schema: z.array(z.string()).describe(description),
    required,
    draw(random) {
      const value = random.shuffle(pool).slice(0, random.integer(size.low, size.high));
      return { value, clause: random.pick(clauses)(spokenList(value)) };
    },
  };
}

export function numberListSlot(names: readonly string[], description: string, required: boolean, range: { low: number; high: number }, clauses: ReadonlyArray<(list: string) => string>): Slot {
  return {
    names,
    description,
    schema: z.array(z.number()).describe(description),
    required,
    draw(random) {
      const value = Array.from({ length: random.integer(3, 6) }, () => random.integer(range.low, range.high));
      return { value, clause: random.pick(clauses)(spokenList(value.map(String))) };
    },
  };
}

/** A yes/no said in words; an optional flag is sent only when the request says it. */
export function flagSlot(names: readonly string[], description: string, required: boolean, yes: readonly string[], no: readonly string[]): Slot {
  return {
    names,
    description,
    schema: z.boolean().describe(description),
    required,
    draw(random) {
      const value = random.next() < 0.6;
      return { value, clause: random.pick(value ? yes : no) };
    },
  };
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** A day in 2027 written as people write it; the value in YYYY-MM-DD as the description says. */
export function dateSlot(names: readonly string[], description: string, required: boolean, clauses: ReadonlyArray<(date: string) => string>): Slot {
  return {
    names,
    description: `${description}, in YYYY-MM-DD`,
    schema: z.string().describe(`${description}, in YYYY-MM-DD`),
    required,
    draw(random) {
      const [month, day] = [random.integer(1, 12), random.integer(2, 27)];
      const name = MONTHS[month - 1]!;
      const written = random.pick([`${name} ${day}, 2027`, `${day} ${name} 2027`, `${name} ${day} 2027`]);
      return { value: `2027-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`, clause: random.pick(clauses)(written) };
    },
  };
}
