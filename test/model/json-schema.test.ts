import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidToolSchemaError } from "../../src/model/errors.js";
import { callableParameters, documentedParameters, MAX_CHOSEN_OPTIONAL_PARAMETERS, MAX_ENUMERATED_INTEGERS, normalizeToolSchema, normalizeToolSpecs, trimSwallowedCallClose, withChosenOptionalParameters } from "../../src/model/json-schema.js";

describe("normalizeToolSchema", () => {
  it("keeps types, enums, optional properties, nested objects and arrays, and drops what a grammar cannot enforce", () => {
    const schema = z.toJSONSchema(
      z.object({
        title: z.string().min(1).describe("What the event is called"),
        when: z.object({ date: z.iso.date(), time: z.string().regex(/^\d\d:\d\d$/).optional() }),
        attendees: z.array(z.string().email()).max(5).default([]),
        kind: z.enum(["meeting", "call"]),
        priority: z.number().int().min(1).max(5).optional(),
        count: z.number().int().min(1).max(100_000).optional(),
        share: z.number().min(0).max(1).optional(),
      }),
      { io: "input" },
    ) as Record<string, unknown>;
    const normalized = normalizeToolSchema("create_event", schema);
    expect(normalized).toEqual({
      type: "object",
      properties: {
        title: { type: "string", minLength: 1, description: "What the event is called" },
        when: {
          type: "object",
          properties: { date: { type: "string", format: "date" }, time: { type: "string" } },
          required: ["date"],
          additionalProperties: false,
        },
        attendees: { type: "array", items: { type: "string" }, maxItems: 5 },
        kind: { enum: ["meeting", "call"] },
        // An integer range small enough for the grammar to list keeps its bounds; a wide one and a number's do not.
        priority: { type: "integer", minimum: 1, maximum: 5 },
        count: { type: "integer" },
        share: { type: "number" },
      },
      required: ["title", "when", "kind"],
      additionalProperties: false,
    });
  });

  it("keeps an integer's bounds, as inclusive integers, only when they hold at most MAX_ENUMERATED_INTEGERS values", () => {
    const bounds = (property: Record<string, unknown>) => (normalizeToolSchema("t", { type: "object", properties: { n: property } }).properties as Record<string, unknown>)["n"];
    expect(bounds({ type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 11 })).toEqual({ type: "integer", minimum: 1, maximum: 10 });
    expect(bounds({ type: "integer", minimum: 0.5, maximum: 3.7 })).toEqual({ type: "integer", minimum: 1, maximum: 3 });
    expect(bounds({ type: "integer", minimum: 1, maximum: MAX_ENUMERATED_INTEGERS })).toEqual({ type: "integer", minimum: 1, maximum: MAX_ENUMERATED_INTEGERS });
    expect(bounds({ type: "integer", minimum: 0, maximum: MAX_ENUMERATED_INTEGERS })).toEqual({ type: "integer" });
    expect(bounds({ type: "integer", minimum: 1 })).toEqual({ type: "integer" });
    // Bounds no integer meets: left to the tool's own validation, as before.
    expect(bounds({ type: "integer", minimum: 5, maximum: 2 })).toEqual({ type: "integer" });
    expect(bounds({ type: "integer", minimum: 0.2, maximum: 0.8 })).toEqual({ type: "integer" });
  });

  it("documents a schema without the bounds, and makes a call grammar list a bounded integer's values", () => {
    const normalized = normalizeToolSchema("get_weather_forecast", {
      type: "object",
      properties: {
        days: { type: "integer", minimum: 1, maximum: 10, description: "How many days" },
        // A property named like a keyword is a property, not a bound.
        minimum: { type: "integer", minimum: 0, maximum: 2 },
        place: { type: "string" },
        hours: { type: "array", items: { type: "integer", minimum: 0, maximum: 3 } },
      },
      required: ["minimum"],
    });
    expect(documentedParameters(normalized)).toEqual({
      type: "object",
      properties: {
        days: { type: "integer", description: "How many days" },
        minimum: { type: "integer" },
        place: { type: "string" },
        hours: { type: "array", items: { type: "integer" } },
      },
      required: ["minimum"],
      additionalProperties: false,
    });
    expect(callableParameters(normalized, 40)).toEqual({
      type: "object",
      properties: {
        days: { enum: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], description: "How many days" },
        minimum: { enum: [0, 1, 2] },
        place: { type: "string", maxLength: 40 },
        hours: { type: "array", items: { enum: [0, 1, 2, 3] } },
      },
      required: ["minimum"],
      additionalProperties: false,
    });
    expect((callableParameters(normalized).properties as Record<string, unknown>)["place"]).toEqual({ type: "string" });
  });

  it("turns anyOf of simple types into a type list or oneOf, and nullable fields into a null alternative", () => {
    const normalized = normalizeToolSchema("t", {
      type: "object",
      properties: {
        amount: { anyOf: [{ type: "number" }, { type: "string" }] },
        note: { type: ["string", "null"] },
        choice: { oneOf: [{ const: "a" }, { const: "b" }] },
      },
    });
    expect(normalized.properties).toEqual({
      amount: { oneOf: [{ type: "number" }, { type: "string" }] },
      note: { type: ["string", "null"] },
      choice: { oneOf: [{ const: "a" }, { const: "b" }] },
    });
  });

  it("inlines $defs references and rejects recursive ones", () => {
    const withReference = {
      type: "object",
      properties: { place: { $ref: "#/$defs/place" } },
      $defs: { place: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
    };
    expect(normalizeToolSchema("t", withReference).properties).toEqual({
      place: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
    });
    const recursive = {
      type: "object",
      properties: { node: { $ref: "#/$defs/node" } },
      $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" } } } },
    };
    expect(() => normalizeToolSchema("tree", recursive)).toThrow(/recursive/);
  });

  it("names the tool and the field of a keyword the grammar cannot follow", () => {
    const bad = { type: "object", properties: { when: { type: "string", not: { const: "" } } } };
    let caught: unknown;
    try {
      normalizeToolSchema("set_alarm", bad);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidToolSchemaError);
    const error = caught as InvalidToolSchemaError;
    expect(error.code).toBe("invalid_tool_schema");
    expect(error.toolName).toBe("set_alarm");
    expect(error.field).toBe("properties.when.not");
    expect(error.message).toContain('"set_alarm"');
  });

  it("rejects a root that is not an object, required names that do not exist, and unknown types", () => {
    expect(() => normalizeToolSchema("t", { type: "string" })).toThrow(InvalidToolSchemaError);
    expect(() => normalizeToolSchema("t", { type: "object", properties: {}, required: ["ghost"] })).toThrow(/ghost/);
    expect(() => normalizeToolSchema("t", { type: "object", properties: { x: { type: "date" } } })).toThrow(/properties\.x\.type/);
    expect(() => normalizeToolSchema("t", { type: "object", properties: { x: { allOf: [{ type: "string" }, { minLength: 2 }] } } })).toThrow(/allOf/);
  });

  it("gives an object without declared properties free keys, and an empty schema any value", () => {
    expect(normalizeToolSchema("t", { type: "object" })).toEqual({ type: "object", properties: {}, additionalProperties: true });
    const anyValue = normalizeToolSchema("t", { type: "object", properties: { value: {} } }).properties as Record<string, { oneOf?: unknown[] }>;
    expect(anyValue.value?.oneOf).toHaveLength(3);
  });
});

describe("normalizeToolSpecs", () => {
  it("rejects duplicate and unusable tool names", () => {
    const tool = { name: "get_weather", description: "d", parameters: { type: "object", properties: {} } };
    expect(() => normalizeToolSpecs([tool, tool])).toThrow(/share this name/);
    expect(() => normalizeToolSpecs([{ ...tool, name: "get weather" }])).toThrow(InvalidToolSchemaError);
    expect(normalizeToolSpecs([tool])[0]?.parameters).toEqual({ type: "object", properties: {}, additionalProperties: false });
  });
});

describe("trimSwallowedCallClose", () => {
  it("cuts a string value where the model wrote the call's close, less the braces and quotes before it", () => {
    expect(
      trimSwallowedCallClose({
        unit: "inch}}</tool_call>  # 4.000001 inches  # 4 inches",
        root_type: 'real"}}</tool_call>  # This is a function',
        nested: { list: ["a", "b}]}}</tool_call> more"] },
        count: 3,
        plain: "a } brace and a ] bracket stay",
      }),
    ).toEqual({ unit: "inch", root_type: "real", nested: { list: ["a", "b"] }, count: 3, plain: "a } brace and a ] bracket stay" });
  });

  it("leaves arguments without a swallowed close as they are", () => {
    const args = { text: "Meet at 10", tags: ["x"], n: null, ok: true };
    expect(trimSwallowedCallClose(args)).toEqual(args);
  });
});

describe("withChosenOptionalParameters", () => {
  const schema = {
    type: "object",
    properties: { a: { type: "string" }, b: { type: "integer" }, c: { type: "boolean" } },
    required: ["b"],
    additionalProperties: false,
  };

  it("offers every subset of the optional parameters, in the schema's order, the required ones always", () => {
    const chosen = withChosenOptionalParameters(schema);
    const alternatives = chosen.oneOf as { properties: Record<string, unknown>; required: string[]; additionalProperties: boolean }[];
    expect(alternatives.map((alternative) => Object.keys(alternative.properties).join(","))).toEqual(["b", "a,b", "b,c", "a,b,c"]);
    for (const alternative of alternatives) {
      expect(alternative.required).toEqual(Object.keys(alternative.properties));
      expect(alternative.additionalProperties).toBe(false);
    }
    expect(alternatives[3]!.properties.b).toEqual({ type: "integer" });
  });

  it("leaves a schema with no optional parameter, or more than the limit, as it is", () => {
    const allRequired = { ...schema, required: ["a", "b", "c"] };
    expect(withChosenOptionalParameters(allRequired)).toBe(allRequired);
    const names = Array.from({ length: MAX_CHOSEN_OPTIONAL_PARAMETERS + 1 }, (_, index) => `p${index}`);
    const many = { type: "object", properties: Object.fromEntries(names.map((name) => [name, { type: "string" }])) };
    expect(withChosenOptionalParameters(many)).toBe(many);
    expect(withChosenOptionalParameters({ type: "object" })).toEqual({ type: "object" });
  });
});
