import type { ToolCall } from "../model/types.js";

/**
 * Filters around each model turn. The input side reads content before it
 * reaches the model and flags what tries to instruct it; the output side reads
 * what the model wrote and blocks what must not leave (fenced data copied out
 * with its marks). Pluggable: pass your own `Guard` (a classifier model, say);
 * the default is rule-based and explains every finding.
 */
export interface GuardFinding {
  /** Stable id of the rule that fired (`ignore-instructions`, `fake-system`…). */
  rule: string;
  /** Readable, shown to the user and to the model in the fence header. */
  message: string;
  /** The text that fired it (shortened). */
  excerpt: string;
}

export interface OutputVerdict {
  blocked: boolean;
  findings: GuardFinding[];
}

export interface Guard {
  /** Findings in content about to reach the model (empty when clean). */
  inspectInput(text: string, context: { source: string }): GuardFinding[];
  /** Whether the model's text and calls may go on; `markers` are the datamarks and boundaries in use. */
  inspectOutput(output: { text: string; toolCalls: readonly ToolCall[] }, context: { markers: readonly string[] }): OutputVerdict;
}

const INJECTION_RULES: readonly { rule: string; pattern: RegExp; message: string }[] = [
  {
    rule: "ignore-instructions",
    pattern: /\b(ignore|disregard|forget|override|skip)\b[^.\n]{0,40}\b(previous|prior|above|earlier|all|your|the|any|original)\b[^.\n]{0,30}\b(instructions?|prompts?|rules?|tasks?|directions?|guidelines?)/i,
    message: "the content asks the assistant to ignore its instructions",
  },
  {
    rule: "fake-system",
    pattern: /(^|\n)\s*(#{1,6}\s*)?(\(quoted\)\s*)?(system|developer)\s*(message|prompt|note|update)?\s*:|\[\s*system\s*\]|‹\|?\s*(im_start|system)|\bsystem (override|notice|instruction)/i,
    message: "the content pretends to be a system message",
  },
  {
    rule: "from-the-user",
    pattern: /\b(important|urgent)\b[^.\n]{0,30}\b(message|instructions?|note|request)\b[^.\n]{0,20}\bfrom\b[^.\n]{0,20}\b(the user|your user|me)\b|\bthis is (the user|your user)\b|\bthe user (wants|asks|has asked|instructs|requests) you\b/i,
    message: "the content pretends to speak for the user",
  },
  {
    rule: "new-instructions",
    pattern: /\b(new|updated|additional|real|actual) (instructions?|task|orders?)\b|\byou (are now|must now|have to now|should now|will now)\b|\bfrom now on\b|\binstead,? (you must|please|do)\b|\bbefore (you can )?(solv|complet|finish|do)(e|ing)? (the|your|this) task\b/i,
    message: "the content tries to give the assistant new instructions",
  },
  {
    rule: "tool-knowledge",
    pattern: /\b(call|use|invoke|run|execute)\b[^.\n]{0,20}\b(the )?(tool|function)\b|\b[a-z]+_[a-z_]+\s*\(\s*[a-z_]+\s*=/i,
    message: "the content tells the assistant which tool to call",
  },
  {
    rule: "chat-template",
    pattern: /‹\|[^|]{1,40}\|›|‹\/?(tool_call|tool_response|think|system|user|assistant)›|<\|[^|]{1,40}\|>|<\/?(tool_call|tool_response)>/i,
    message: "the content holds chat-template tokens (they were neutralised)",
  },
];

function excerptOf(text: string, index: number, length: number): string {
  const start = Math.max(0, index - 10);
  const slice = text.slice(start, index + length + 10).replace(/\s+/g, " ").trim();
  return slice.length > 120 ? `${slice.slice(0, 119)}…` : slice;
}

/** The default guard: phrasings known from prompt-injection attacks, and marker leaks on the way out. */
export class RuleBasedGuard implements Guard {
  inspectInput(text: string): GuardFinding[] {
    const findings: GuardFinding[] = [];
    for (const { rule, pattern, message } of INJECTION_RULES) {
      const match = pattern.exec(text);
      if (match) findings.push({ rule, message, excerpt: excerptOf(text, match.index, match[0].length) });
    }
    return findings;
  }

  inspectOutput(output: { text: string; toolCalls: readonly ToolCall[] }, context: { markers: readonly string[] }): OutputVerdict {
    const findings: GuardFinding[] = [];
    const pieces = [output.text, ...output.toolCalls.map((call) => JSON.stringify(call.arguments))];
    for (const marker of context.markers) {
      if (marker.length < 4) continue;
      for (const piece of pieces) {
        const index = piece.indexOf(marker);
        if (index >= 0) {
          findings.push({
            rule: "fence-leak",
            message: "the output copies fenced untrusted content with its marks",
            excerpt: excerptOf(piece, index, marker.length),
          });
          break;
        }
      }
    }
    for (const piece of pieces) {
      const match = /<<(untrusted|end) [0-9a-f]{4,32}>>/.exec(piece);
      if (match) {
        findings.push({ rule: "fence-leak", message: "the output holds a fence boundary", excerpt: excerptOf(piece, match.index, match[0].length) });
        break;
      }
    }
    return { blocked: findings.length > 0, findings };
  }
}
