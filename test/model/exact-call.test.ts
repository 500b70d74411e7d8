import { LlamaText, SpecialTokensText, type Token, type Tokenizer } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { tokenExactCall } from "../../src/model/exact-call.js";

/**
 * A tokenizer over a small vocabulary, longest match first, that merges what
 * a model under a grammar may write apart (` {"`, `}}`), as SmolLM2's does.
 * Special tokens are only read as such when asked to (special-token text).
 */
const SPECIAL = ["<|im_start|>", "<|im_end|>"];
const VOCABULARY = [
  ...SPECIAL,
  "<tool_call>", "</tool_call>", '{"name": "', "add_event", '", "arguments":', " ", ' {"', '{"', "title", '": "', "lunch", '", "', "minutes", '": ', "30", "}}", "}",
  "\n", "assistant", "user", "<tool_response>", "</tool_response>", '"', ":", ",", "{",
];

function fakeTokenizer(): Tokenizer {
  const tokenize = (text: string, specialTokens?: boolean | "builtin"): Token[] => {
    const tokens: Token[] = [];
    let rest = text;
    while (rest.length > 0) {
      const match = VOCABULARY.filter((piece) => rest.startsWith(piece) && (specialTokens === true || !SPECIAL.includes(piece)))
        .sort((a, b) => b.length - a.length)[0];
      // Anything outside the vocabulary is one token per character (code point + 1000).
      if (match === undefined) {
        tokens.push((1000 + rest.codePointAt(0)!) as Token);
        rest = rest.slice(1);
      } else {
        tokens.push(VOCABULARY.indexOf(match) as Token);
        rest = rest.slice(match.length);
      }
    }
    return tokens;
  };
  const detokenize = (tokens: readonly Token[]): string =>
    tokens.map((token) => (token >= 1000 ? String.fromCodePoint(token - 1000) : VOCABULARY[token]!)).join("");
  return Object.assign(tokenize, { detokenize, isSpecialToken: (token: Token) => token < SPECIAL.length, isEogToken: () => false }) as unknown as Tokenizer;
}

const tokenizer = fakeTokenizer();
const pieces = (...parts: string[]): Token[] => parts.map((part) => VOCABULARY.indexOf(part) as Token);
const RAW = '<tool_call>{"name": "add_event", "arguments": {"title": "lunch", "minutes": 30}}</tool_call>';
const SUFFIX = "}</tool_call>";
const TURN_OPEN = [...tokenizer("<|im_start|>assistant\n", true)];
// What the model wrote: `"arguments":` `␣` `{"`, where the text tokenizes as `␣{"`; then the
// arguments' brace and node-llama-cpp's four-newline end of the arguments (three evaluated).
const GENERATED = [
  ...pieces("<tool_call>", '{"name": "', "add_event", '", "arguments":', " ", '{"', "title", '": "', "lunch", '", "', "minutes", '": ', "30", "}"),
  ...pieces("\n", "\n", "\n"),
];
const CALL_END = TURN_OPEN.length + GENERATED.length - 3;

/** A model turn as the prompted format renders it: marker, the call, the end of the turn. */
function renderTurn(call: LlamaText | string): Token[] {
  return LlamaText([new SpecialTokensText("<|im_start|>assistant\n"), call, new SpecialTokensText("<|im_end|>\n")]).tokenize(tokenizer);
}

describe("tokenExactCall", () => {
  it("renders a generated call as the tokens it was evaluated as, with the same text", () => {
    const context = [...TURN_OPEN, ...GENERATED];
    // The raw text tokenizes otherwise: the cached context would break at `␣{"`.
    expect(renderTurn(RAW).slice(0, CALL_END)).not.toEqual(context.slice(0, CALL_END));

    const exact = tokenExactCall(tokenizer, context, TURN_OPEN.length, RAW, SUFFIX, "special");
    expect(exact).toBeDefined();
    const text = LlamaText.fromJSON(exact!.raw);
    expect(text.toString()).toBe(RAW);
    expect(exact!.end).toBe(CALL_END);
    const rendered = renderTurn(text);
    // Everything the model wrote is reused, up to the arguments' last brace; the close follows.
    expect(rendered.slice(0, CALL_END)).toEqual(context.slice(0, CALL_END));
    expect(tokenizer.detokenize(rendered.slice(CALL_END))).toBe("}</tool_call><|im_end|>\n");
  });

  it("keeps the call apart from text the model wrote before it", () => {
    const before = tokenizer("Sure: ");
    const context = [...TURN_OPEN, ...before, ...GENERATED];
    const exact = tokenExactCall(tokenizer, context, TURN_OPEN.length, RAW, SUFFIX, "text");
    expect(exact).toBeDefined();
    const rendered = renderTurn(LlamaText(["Sure: ", LlamaText.fromJSON(exact!.raw)]));
    expect(rendered.slice(0, exact!.end)).toEqual(context.slice(0, exact!.end));
  });

  it("gives nothing (the raw text stays) when the call is not in the context or its close is another", () => {
    const context = [...TURN_OPEN, ...GENERATED];
    expect(tokenExactCall(tokenizer, context.slice(0, 8), TURN_OPEN.length, RAW, SUFFIX, "special")).toBeUndefined();
    expect(tokenExactCall(tokenizer, context, TURN_OPEN.length, RAW.replace("lunch", "dinner"), SUFFIX, "special")).toBeUndefined();
    expect(tokenExactCall(tokenizer, context, TURN_OPEN.length, RAW, ")", "special")).toBeUndefined();
  });
});
