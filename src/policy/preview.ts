import { BotpsyError, errorMessage } from "../errors.js";
import type { Change, Store } from "../store/store.js";
import { ToolError, type Tool, type ToolContext } from "../tools/tool.js";

/**
 * What a call will do, in words, for an approval request: "will send to
 * frank@… the text …", "will charge 42.00 EUR to card …4411", "will delete 3
 * files: …". Computed by dry-running the call in a transaction that is rolled
 * back, then reading the changes it would have made (and the tool's own
 * `describe` when it has one).
 */
export interface PreviewEnvironment {
  store: Store;
  now(): Date;
  timeZone: string;
}

export interface CallPreview {
  text: string;
  /** The records the call would change (empty when it failed or changes nothing in the store). */
  changes: Change[];
  /** Set when the dry run failed: the call would fail the same way. */
  error?: string;
  /** The failure's stable code, when the dry run failed with one (a ToolError's code). */
  errorCode?: string;
  /** The fix the failure names, when it names one (a ToolError's `retryWith`). */
  retryWith?: Record<string, string>;
}

export async function previewCall(
  environment: PreviewEnvironment,
  tool: Tool,
  args: Record<string, unknown>,
  options: { sessionId?: string; signal?: AbortSignal } = {},
): Promise<CallPreview> {
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(arguments)"}: ${issue.message}`).join("; ");
    return { text: `${tool.name} cannot run: its arguments are not valid (${problems}).`, changes: [], error: problems };
  }
  let described: string | undefined;
  try {
    const outcome = await environment.store.action(
      { tool: tool.name, args, sessionId: options.sessionId },
      async (store) => {
        const context: ToolContext = {
          signal: options.signal ?? new AbortController().signal,
          sessionId: options.sessionId,
          store,
          now: environment.now,
          timeZone: environment.timeZone,
          dryRun: true,
        };
        described = tool.describe?.(parsed.data, context);
        // A hung tool must not hold the (rolled-back) transaction open past the caller's deadline.
        return untilAborted(() => tool.run(parsed.data, context), context.signal);
      },
      { dryRun: true },
    );
    const text = described ?? describeCall(tool, args, outcome.changes, outcome.value);
    return { text, changes: outcome.changes };
  } catch (error) {
    const message = errorMessage(error);
    const intent = described ?? describeCall(tool, args, [], undefined);
    const errorCode = error instanceof BotpsyError ? error.code : undefined;
    const retryWith = error instanceof ToolError ? error.retryWith : undefined;
    return {
      text: `${intent} (a trial run failed: ${message})`,
      changes: [],
      error: message,
      ...(errorCode !== undefined ? { errorCode } : {}),
      ...(retryWith !== undefined ? { retryWith } : {}),
    };
  }
}

/** The work's result, or a rejection as soon as `signal` aborts (a hung tool cannot hold a transaction or a run). */
export function untilAborted<T>(work: () => Promise<T> | T, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve()
      .then(work)
      .then(resolve, reject)
      .finally(() => signal.removeEventListener("abort", onAbort));
  });
}

const RECIPIENT_KEY = /^(to|with|recipients?|contacts?|chat|conversation|email|address|phone|number|payee|beneficiary|cc|bcc)$/i;
/** Who wrote or owns a record is not who the call sends to: recipients are not looked for under these. */
const AUTHOR_KEY = /^(from|owner|author|sender|by|organizer|organiser)$/i;
const TEXT_KEY = /^(text|body|message|content)$/i;
const AMOUNT_KEY = /^(amount|total|price|sum|grand_total|grandTotal|cost)$/i;
const CARD_KEY = /^(last4|card_last4|cardLast4|card|card_number|cardNumber|payment_method|paymentMethod|card_id|cardId|from_account|account)$/i;
const LABEL_KEY = ["name", "title", "subject", "path", "label", "summary", "filename", "file"] as const;

/** A sentence for `tool(args)` from its risk, arguments and the changes a dry run made. */
export function describeCall(tool: Pick<Tool, "name" | "risk">, args: Record<string, unknown>, changes: readonly Change[], result?: unknown): string {
  switch (tool.risk) {
    case "send":
      return describeSend(tool.name, args, changes);
    case "spend":
      return describeSpend(tool.name, args, changes, result);
    case "destructive":
      return describeDestructive(tool.name, args, changes);
    case "settings":
      return describeSettings(tool.name, args, changes);
    default:
      return describeChanges(tool.name, args, changes);
  }
}

function collect(
  value: unknown,
  keyPattern: RegExp,
  found: { key: string; value: unknown }[] = [],
  depth = 0,
  skip?: RegExp,
): { key: string; value: unknown }[] {
  if (depth > 5 || value === null || typeof value !== "object") return found;
  for (const [key, child] of Object.entries(value)) {
    if (skip?.test(key)) continue;
    if (keyPattern.test(key) && child !== null && child !== undefined && child !== "") found.push({ key, value: child });
    if (typeof child === "object") collect(child, keyPattern, found, depth + 1, skip);
  }
  return found;
}

function asText(value: unknown): string {
  if (Array.isArray(value)) return value.map(asText).join(", ");
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    for (const key of ["email", "address", "name", "phone", "id"]) if (typeof record[key] === "string") return record[key] as string;
    return JSON.stringify(value);
  }
  return String(value);
}

function quote(text: string, length = 120): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return `“${flat.length > length ? `${flat.slice(0, length - 1)}…` : flat}”`;
}

/** The records a call would leave, those it creates first (the message it sends says more than the one it updates). */
function afterValues(changes: readonly Change[]): unknown[] {
  const created = changes.filter((change) => change.before === null);
  const changed = changes.filter((change) => change.before !== null);
  return [...created, ...changed].map((change) => change.after).filter((value) => value !== null);
}

function describeSend(toolName: string, args: Record<string, unknown>, changes: readonly Change[]): string {
  const sources = [args, ...afterValues(changes)];
  const reaction = collect(args, /^(reaction|emoji)$/i)[0];
  if (reaction) {
    const target = changes.find((change) => change.after !== null && change.before !== null)?.after;
    const targetText = target === undefined ? undefined : collect(target, TEXT_KEY)[0];
    const author = target === undefined ? undefined : collect(target, AUTHOR_KEY)[0];
    return `Will react with ${asText(reaction.value)} to ${targetText ? `the message ${quote(asText(targetText.value), 80)}` : "a message"}${author ? ` from ${asText(author.value)}` : ""}`;
  }
  const recipients = sources.flatMap((source) => collect(source, RECIPIENT_KEY, [], 0, AUTHOR_KEY)).filter((entry) => !/^(cc|bcc)$/i.test(entry.key));
  const copies = collect(args, /^(cc|bcc)$/i);
  const text = sources.flatMap((source) => collect(source, TEXT_KEY))[0];
  const subject = sources.flatMap((source) => collect(source, /^subject$/i))[0];
  const attachments = collect(args, /^(attachments?|files?)$/i)[0];
  const to = recipients[0] ? asText(recipients[0].value) : "someone";
  const parts = [`will send to ${to}`];
  if (copies.length > 0) parts.push(`(copy to ${copies.map((entry) => asText(entry.value)).join(", ")})`);
  if (subject) parts.push(`the subject ${quote(asText(subject.value), 80)} and`);
  parts.push(text ? `the text ${quote(asText(text.value))}` : `a message (${toolName})`);
  if (attachments) parts.push(`with ${asText(attachments.value)} attached`);
  return capitalise(parts.join(" "));
}

function formatAmount(value: unknown): string | undefined {
  const number = typeof value === "number" ? value : typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : undefined;
  // A ledger records a charge as a negative entry; the user is told the sum that leaves the account.
  return number === undefined ? undefined : Math.abs(number).toFixed(2);
}

function describeSpend(toolName: string, args: Record<string, unknown>, changes: readonly Change[], result: unknown): string {
  const sources = [args, ...afterValues(changes), result];
  const amount = sources
    .flatMap((source) => collect(source, AMOUNT_KEY))
    .map((entry) => formatAmount(entry.value))
    .find((value) => value !== undefined);
  const currency = sources.flatMap((source) => collect(source, /^currency$/i))[0];
  const card = sources.flatMap((source) => collect(source, CARD_KEY))[0];
  const payee = sources.flatMap((source) => collect(source, /^(to|payee|merchant|beneficiary|recipient|store|hotel|airline|to_account)$/i))[0];
  let text = amount ? `will charge ${amount}${currency ? ` ${asText(currency.value)}` : ""}` : `will spend money (${toolName})`;
  if (card) {
    const cardText = asText(card.value);
    const digits = cardText.replace(/\D/g, "");
    text += digits.length >= 4 ? ` to card …${digits.slice(-4)}` : ` to ${cardText}`;
  }
  if (payee) text += ` for ${asText(payee.value)}`;
  return capitalise(text);
}

function labelOf(value: unknown, fallback: string): string {
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    for (const key of LABEL_KEY) if (typeof record[key] === "string") return record[key] as string;
  }
  return fallback;
}

function describeDestructive(toolName: string, args: Record<string, unknown>, changes: readonly Change[]): string {
  const deleted = changes.filter((change) => change.after === null && change.before !== null);
  if (deleted.length > 0) {
    const byCollection = new Map<string, string[]>();
    for (const change of deleted) {
      const list = byCollection.get(change.collection) ?? [];
      list.push(labelOf(change.before, change.recordId));
      byCollection.set(change.collection, list);
    }
    const parts = [...byCollection].map(([collection, labels]) => `${labels.length} ${plural(collection, labels.length)}: ${labels.slice(0, 5).join(", ")}${labels.length > 5 ? ", …" : ""}`);
    return `Will delete ${parts.join("; ")}`;
  }
  const targets = collect(args, /^(paths?|files?|ids?|names?|targets?|\w+_ids?|\w+Ids?)$/i);
  if (targets.length > 0) return `Will delete ${targets.map((entry) => asText(entry.value)).join(", ")} (${toolName})`;
  return `${describeChanges(toolName, args, changes)} (cannot be undone)`;
}

function describeSettings(toolName: string, args: Record<string, unknown>, changes: readonly Change[]): string {
  const differences: string[] = [];
  for (const change of changes) {
    if (change.before === null || change.after === null || typeof change.before !== "object" || typeof change.after !== "object") continue;
    const before = change.before as Record<string, unknown>;
    const after = change.after as Record<string, unknown>;
    for (const key of Object.keys(after)) {
      // Bookkeeping the app keeps beside a setting (what to restore later) is not something the user changes.
      if (typeof after[key] === "object" || typeof before[key] === "object") continue;
      if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) differences.push(`${key} from ${onOff(before[key])} to ${onOff(after[key])}`);
    }
  }
  if (differences.length > 0) return `Will change ${differences.join(", ")}`;
  return `Will change settings: ${toolName}(${JSON.stringify(args)})`;
}

function onOff(value: unknown): string {
  if (value === true) return "on";
  if (value === false) return "off";
  return JSON.stringify(value);
}

function describeChanges(toolName: string, args: Record<string, unknown>, changes: readonly Change[]): string {
  if (changes.length === 0) return `Will run ${toolName}(${JSON.stringify(args)}) (changes nothing stored)`;
  const counts = new Map<string, { created: string[]; changed: string[]; deleted: string[] }>();
  for (const change of changes) {
    const entry = counts.get(change.collection) ?? { created: [], changed: [], deleted: [] };
    if (change.before === null) entry.created.push(labelOf(change.after, change.recordId));
    else if (change.after === null) entry.deleted.push(labelOf(change.before, change.recordId));
    else entry.changed.push(labelOf(change.after, change.recordId));
    counts.set(change.collection, entry);
  }
  const parts: string[] = [];
  for (const [collection, { created, changed, deleted }] of counts) {
    if (created.length > 0) parts.push(`create ${created.length} ${plural(collection, created.length)} (${created.slice(0, 3).join(", ")})`);
    if (changed.length > 0) parts.push(`change ${changed.length} ${plural(collection, changed.length)} (${changed.slice(0, 3).join(", ")})`);
    if (deleted.length > 0) parts.push(`delete ${deleted.length} ${plural(collection, deleted.length)} (${deleted.slice(0, 3).join(", ")})`);
  }
  return `Will ${parts.join(", ")}`;
}

/** Collections are named in the plural ("files"); one of them reads better in the singular. */
function plural(collection: string, count: number): string {
  if (count !== 1) return collection;
  if (collection.endsWith("ies")) return `${collection.slice(0, -3)}y`;
  if (/(ss|x|ch|sh)es$/.test(collection)) return collection.slice(0, -2);
  if (collection.endsWith("s") && !collection.endsWith("ss")) return collection.slice(0, -1);
  return collection;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
