import { createHash, randomBytes } from "node:crypto";
import { createGeneration } from "../model/generation.js";
import type { ChatModel, GenerateRequest, GenerateResult, Generation, ModelEvent } from "../model/types.js";
import { PeerError } from "./errors.js";
import { decideOffload, DEFAULT_OFFLOAD_RULE, mayOffload, type LocalModelInfo, type OffloadRule } from "./offload-rule.js";
import type { PeerClient } from "./peer-client.js";
import type { LenderModelInfo } from "./protocol.js";

export interface OffloadingModelOptions {
  local: ChatModel;
  localInfo: LocalModelInfo;
  /** Prompt tokens of a request under the local model's tokenizer. */
  measurePrompt: (request: GenerateRequest) => number;
  lenderName: string;
  /** Opens the link to the lender (called on the first turn that may go there, again after a drop once `retryAfterMs` passed). */
  connect: () => Promise<{ client: PeerClient; info: LenderModelInfo }>;
  /** "always": every turn goes to the lender while it answers; "auto": the offload rule decides. */
  mode: "always" | "auto";
  rule?: OffloadRule;
  /** After the lender fails, turns stay here this long before it is tried again. Default 60 000 ms. */
  retryAfterMs?: number;
  /** Told where a turn goes when that is news: a drop, a fallback, the first offload. */
  onNotice?: (text: string) => void;
}

/**
 * A model that plays each turn here or on a paired lender. A turn is whole
 * before the agent sees it, and a tool call only runs after its turn is
 * whole, so a lender that drops mid-turn leaves nothing half done: the same
 * turn is played again here (with the same messages), and the run goes on.
 * Each result says where it was generated (`servedBy`).
 */
export class OffloadingModel implements ChatModel {
  readonly id: string;
  private client: PeerClient | undefined;
  private lenderInfo: LenderModelInfo | undefined;
  private downUntil = 0;
  /** Conversation ids are hashed with this, so the lender sees no session id of ours. */
  private readonly salt = randomBytes(16);
  private readonly rule: OffloadRule;

  constructor(private readonly options: OffloadingModelOptions) {
    this.id = options.local.id;
    this.rule = options.rule ?? DEFAULT_OFFLOAD_RULE;
  }

  generate(request: GenerateRequest): Generation {
    return createGeneration((emit) => this.play(request, emit));
  }

  endConversation(conversationId: string): void {
    this.options.local.endConversation?.(conversationId);
  }

  async dispose(): Promise<void> {
    await this.client?.close();
    this.client = undefined;
  }

  private async play(request: GenerateRequest, emit: (event: ModelEvent) => void): Promise<GenerateResult> {
    const lender = await this.chooseLender(request);
    if (lender !== undefined) {
      try {
        const conversation = request.conversationId !== undefined ? createHash("sha256").update(this.salt).update(request.conversationId).digest("hex").slice(0, 32) : undefined;
        const result = await lender.generate(request, conversation);
        checkCallsOffered(result, request);
        if (request.signal?.aborted !== true) {
          replay(result, emit);
          return { ...result, servedBy: `peer:${this.options.lenderName}` };
        }
        return { ...result, stopReason: "aborted", servedBy: `peer:${this.options.lenderName}` };
      } catch (error) {
        if (request.signal?.aborted === true) throw error;
        this.markDown();
        this.options.onNotice?.(`peer ${this.options.lenderName} failed during a model turn (${error instanceof Error ? error.message : String(error)}); this turn runs here instead.`);
      }
    }
    const generation = this.options.local.generate(request);
    for await (const event of generation) emit(event);
    return await generation.result;
  }

  /** The lender's link when this turn goes there; undefined when it runs here. */
  private async chooseLender(request: GenerateRequest): Promise<PeerClient | undefined> {
    if (Date.now() < this.downUntil) return undefined;
    let turn: { promptTokens: number; maxTokens: number } | undefined;
    if (this.options.mode === "auto") {
      turn = { promptTokens: this.options.measurePrompt(request), maxTokens: request.maxTokens ?? 512 };
      if (!mayOffload(turn, this.options.localInfo, this.rule)) return undefined;
    }
    try {
      if (this.client === undefined || this.client.closed) {
        await this.client?.close();
        this.client = undefined;
        const opened = await this.options.connect();
        this.client = opened.client;
        this.lenderInfo = opened.info;
      }
    } catch (error) {
      this.markDown();
      this.options.onNotice?.(`peer ${this.options.lenderName} is not reachable (${error instanceof Error ? error.message : String(error)}); turns run here.`);
      return undefined;
    }
    if (turn !== undefined && this.lenderInfo !== undefined) {
      const decision = decideOffload(turn, this.options.localInfo, this.lenderInfo, this.rule);
      if (decision.where === "local") return undefined;
      this.options.onNotice?.(`model turn goes to peer ${this.options.lenderName}: ${decision.reason}.`);
    }
    return this.client;
  }

  private markDown(): void {
    this.downUntil = Date.now() + (this.options.retryAfterMs ?? 60_000);
    const client = this.client;
    this.client = undefined;
    void client?.close().catch(() => undefined);
  }
}

/** A lender's call to a tool the request did not offer is refused like a local grammar would have. */
function checkCallsOffered(result: GenerateResult, request: GenerateRequest): void {
  const offered = new Set((request.tools ?? []).map((tool) => tool.name));
  const stray = result.toolCalls.find((call) => !offered.has(call.name));
  if (stray !== undefined) throw new PeerError("peer_invalid_call", `the lender returned a call to "${stray.name}", which this turn did not offer`);
}

function replay(result: GenerateResult, emit: (event: ModelEvent) => void): void {
  if (result.thoughts !== "") emit({ type: "thought-delta", text: result.thoughts });
  if (result.text !== "") emit({ type: "text-delta", text: result.text });
  for (const call of result.toolCalls) emit({ type: "tool-call", call });
  emit({ type: "usage", usage: result.usage });
  emit({ type: "done", stopReason: result.stopReason });
}
