import { LlamaText, SpecialTokensText, type LlamaTextJSON, type LlamaTextJSONValue, type Token, type Tokenizer } from "node-llama-cpp";

/**
 * What comes right before a call in a rendered model turn: a turn marker
 * (special-token text, such as ChatML's `<|im_start|>assistant\n`) or text the
 * model wrote before the call.
 */
export type CallPrecededBy = "special" | "text";

/**
 * A generated call as the exact tokens it was evaluated as, for the history:
 * node-llama-cpp renders a remembered call (`rawCall`) as text and tokenizes
 * it again, which does not give back the model's tokens where the model wrote
 * a boundary the tokenizer would merge (under the call grammar SmolLM2 writes
 * `"arguments":` `␣` `{"` where the text tokenizes as `␣{"`), and the call's
 * closing text (`}</tool_call>` in the prompted format), which the model never
 * wrote, merges with the arguments' last brace (`}}`).
 *
 * A LlamaText tokenizes each run of plain strings, and each run of special-token
 * text, on its own, so the call is returned as runs that alternate between the
 * two kinds, each tokenizing back to exactly its generated tokens (special-token
 * text tokenizes as plain text unless it holds a special token's text, which a
 * run is checked not to). The text is the same as the call's raw text: only
 * where the tokenizer cuts it changes.
 *
 * `contextTokens` is the sequence's context after the generation; the call is
 * looked for from `from` (the start of the model's turn, or the end of the
 * previous call). `suffix` is the call's closing text, appended as a run of its
 * own. Gives `undefined` (keep the raw text) when the call's text is not found
 * on token boundaries or a run cannot be made to tokenize back.
 */
export function tokenExactCall(
  tokenizer: Tokenizer,
  contextTokens: readonly Token[],
  from: number,
  raw: LlamaTextJSON,
  suffix: string,
  precededBy: CallPrecededBy,
): { raw: LlamaTextJSON; end: number } | undefined {
  const rawText = LlamaText.fromJSON(raw);
  if (rawText.values.some((value) => typeof value !== "string")) return undefined;
  const text = rawText.toString();
  if (suffix === "" || !text.endsWith(suffix)) return undefined;
  const body = text.slice(0, -suffix.length);
  const span = findSpan(tokenizer, contextTokens, from, body);
  if (span === undefined) return undefined;
  const runs = alternatingRuns(tokenizer, contextTokens.slice(span.start, span.end), other(precededBy));
  if (runs === undefined || runs.length === 0) return undefined;
  const values: LlamaTextJSONValue[] = runs.map((run) => run.value);
  // The closing text is of the other kind than the last run, so that it is not tokenized with it.
  if (other(runs[runs.length - 1]!.kind) === "special") {
    // Special-token text is tokenized with the turn marker after it; the closing text must not contain a special token.
    if (!sameTokens(tokenizer(suffix, true, "trimLeadingSpace"), tokenizer(suffix, false, "trimLeadingSpace"))) return undefined;
    values.push(new SpecialTokensText(suffix).toJSON());
  } else {
    values.push(suffix);
  }
  return { raw: values, end: span.end };
}

type RunKind = CallPrecededBy;

function other(kind: RunKind): RunKind {
  return kind === "special" ? "text" : "special";
}

/** The first token span at or after `from` whose text is exactly `body`. */
function findSpan(tokenizer: Tokenizer, tokens: readonly Token[], from: number, body: string): { start: number; end: number } | undefined {
  for (let start = from; start < tokens.length; start++) {
    const first = tokenizer.detokenize([tokens[start]!], false);
    if (first === "" || !body.startsWith(first)) continue;
    for (let end = start + 1; end <= tokens.length; end++) {
      const text = tokenizer.detokenize(tokens.slice(start, end), false);
      if (text === body) return { start, end };
      // A few tokens of slack for a character split across tokens.
      if (text.length > body.length + 8) break;
    }
  }
  return undefined;
}

/**
 * Cuts `tokens` into the longest runs, alternating in kind from `firstKind`,
 * whose text tokenizes back to exactly the run's tokens.
 */
function alternatingRuns(tokenizer: Tokenizer, tokens: readonly Token[], firstKind: RunKind): { kind: RunKind; value: LlamaTextJSONValue }[] | undefined {
  const runs: { kind: RunKind; value: LlamaTextJSONValue }[] = [];
  let kind = firstKind;
  let start = 0;
  while (start < tokens.length) {
    let best: { end: number; text: string } | undefined;
    for (let end = start + 1; end <= tokens.length; end++) {
      // Past a few failing tokens (a character split across tokens) a longer run will not round-trip again.
      if (best !== undefined && end - best.end > 4) break;
      if (best === undefined && end - start > 4) break;
      const text = tokenizer.detokenize(tokens.slice(start, end), false);
      const again = LlamaText([kind === "special" ? new SpecialTokensText(text) : text]).tokenize(tokenizer, "trimLeadingSpace");
      if (sameTokens(again, tokens.slice(start, end))) best = { end, text };
    }
    if (best === undefined) return undefined;
    runs.push({ kind, value: kind === "special" ? new SpecialTokensText(best.text).toJSON() : best.text });
    start = best.end;
    kind = other(kind);
  }
  return runs;
}

function sameTokens(first: readonly Token[], second: readonly Token[]): boolean {
  return first.length === second.length && first.every((token, index) => token === second[index]);
}
