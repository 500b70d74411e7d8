import type { Command } from "commander";
import { CALL_BIAS_OPTION_DESCRIPTION, LORA_OPTION_DESCRIPTION, parseCallBias, parseForcedCallFloor, FORCED_CALL_FLOOR_OPTION_DESCRIPTION } from "../../model/shipped-adapter.js";
import type { Agent } from "../../agent/agent.js";
import type { AgentEvent, AgentOutcome, AgentRun, ApprovalDecision, ApprovalRequest } from "../../agent/types.js";
import { Profile } from "../../apps/profile.js";
import { InvalidInputError } from "../../errors.js";
import type { ChatModel } from "../../model/types.js";
import type { SafetyLayer } from "../../policy/safety.js";
import { AuditLog } from "../../policy/audit.js";
import { createRuntime, type Runtime } from "../../runtime.js";
import { openRunModel, openWebVia, parseOffloadOption, parseWebViaOption } from "../../peer/run-model.js";
import type { PeerWebFetcher } from "../../peer/web-via-peer.js";
import { judgeRun, type RunVerdict } from "../../agent/outcome.js";
import { setLlamaLogVerbose } from "../../model/llama-log.js";
import { openProfileAnnounced } from "../first-run.js";
import { approvalAnswerSource, LineReader, parseApproveOption, pausedMessage, type ApprovalAnswer } from "../approval-input.js";

export interface AgentCommandOptions {
  model?: string;
  lora?: string;
  callBias?: string;
  forcedCallFloor?: string;
  maxSteps?: string;
  threads?: string;
  session?: string;
  yes?: boolean;
  json?: boolean;
  requireTool?: boolean;
  approve?: string;
  verbose?: boolean;
  /** `--offload never|auto|<peer>` (see src/peer/offload-rule.ts). */
  offload?: string;
  /** `--web-via here|<peer>`: where the web apps' requests go out (see src/peer/web-via-peer.ts). */
  webVia?: string;
  bootstrap?: string[];
  allowRemoteBootstrap?: boolean;
  /** `--peer-timeout <seconds>`: how long to wait for a peer to answer. */
  peerTimeout?: string;
}

/** Everything a command needs to run requests: the runtime (profile, model, the agent behind the safety layer). */
export interface AgentSetup {
  runtime: Runtime;
  profile: Profile;
  model: ChatModel;
  safety: SafetyLayer;
  agent: Agent;
  close(): Promise<void>;
}

export function parseMaxSteps(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const steps = Number(value);
  if (!Number.isInteger(steps) || steps < 1) throw new InvalidInputError(`--max-steps must be a whole number of at least 1, not "${value}".`);
  return steps;
}

export function parsePeerTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 1 || seconds > 600) {
    throw new InvalidInputError(`--peer-timeout must be a number of seconds from 1 to 600, not "${value}".`);
  }
  return Math.round(seconds * 1000);
}

export function parseThreads(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const threads = Number(value);
  if (!Number.isInteger(threads) || threads < 1) throw new InvalidInputError(`--threads must be a whole number of at least 1, not "${value}".`);
  return threads;
}

/**
 * The profile an agent command acts on, with config.json's web providers and
 * the web apps' way out (`--web-via`): this device's network, or a paired
 * peer that lends its internet. Shared by `run`, `chat`, `resume` and `serve`.
 */
export async function openAgentProfile(
  options: Pick<AgentCommandOptions, "webVia" | "bootstrap" | "allowRemoteBootstrap"> & { profileName?: string },
): Promise<{ profile: Profile; webVia: PeerWebFetcher | undefined }> {
  const webVia = openWebVia({
    ...(options.webVia !== undefined ? { webVia: parseWebViaOption(options.webVia) } : {}),
    ...(options.bootstrap !== undefined ? { bootstrap: options.bootstrap } : {}),
    ...(options.allowRemoteBootstrap === true ? { allowRemoteBootstrap: true } : {}),
  });
  try {
    const profile = openProfileAnnounced({
      ...(options.profileName !== undefined ? { name: options.profileName } : {}),
      ...(webVia !== undefined ? { webFetcher: webVia.fetch } : {}),
    });
    if (webVia !== undefined) {
      // The device's own audit log says which pages went out through the peer (the lender logs them too).
      const audit = new AuditLog(profile.store);
      webVia.onRequest = (record) => audit.append({ kind: "web-request", data: record });
    }
    if (webVia !== undefined && Object.keys(profile.environment.providers).length === 0) {
      process.stderr.write(`botpsy: --web-via ${webVia.lenderName} has nothing to send: no web provider is set (providers in config.json), so the web apps answer from their bundled data.\n`);
    } else {
      // The link opens while the model loads, so the first web request does not wait for it.
      webVia?.prepare();
    }
    return { profile, webVia };
  } catch (error) {
    await webVia?.close();
    throw error;
  }
}

export async function setUpAgent(options: AgentCommandOptions & { quiet?: boolean }): Promise<AgentSetup> {
  const maxSteps = parseMaxSteps(options.maxSteps);
  const threads = parseThreads(options.threads);
  setLlamaLogVerbose(options.verbose === true);
  const offload = parseOffloadOption(options.offload);
  const peerTimeoutMs = parsePeerTimeout(options.peerTimeout);
  const { profile, webVia } = await openAgentProfile(options);
  let runtime: Runtime;
  let runModel: Awaited<ReturnType<typeof openRunModel>> | undefined;
  try {
    // The model, and where its turns may go (a paired peer); tools and approvals stay here.
    runModel = await openRunModel({
      ...(options.model !== undefined ? { model: options.model } : {}),
      progress: !options.quiet,
      ...(threads !== undefined ? { threads } : {}),
      ...(options.lora !== undefined ? { lora: options.lora } : {}),
      ...(options.callBias !== undefined ? { callBias: parseCallBias(options.callBias) } : {}),
      ...(options.forcedCallFloor !== undefined ? { forcedCallFloor: parseForcedCallFloor(options.forcedCallFloor) } : {}),
      ...(offload !== undefined ? { offload } : {}),
      ...(options.bootstrap !== undefined ? { bootstrap: options.bootstrap } : {}),
      ...(options.allowRemoteBootstrap === true ? { allowRemoteBootstrap: true } : {}),
      ...(peerTimeoutMs !== undefined ? { peerTimeoutMs } : {}),
      onNotice: (text) => process.stderr.write(`botpsy: ${text}\n`),
    });
    runtime = await createRuntime({
      profile,
      model: runModel.model,
      agent: {
        ...(maxSteps !== undefined ? { maxSteps } : {}),
        ...(options.requireTool ? { firstStepToolChoice: "required" as const } : {}),
      },
    });
  } catch (error) {
    await runModel?.close();
    await webVia?.close();
    profile.close();
    throw error;
  }
  const ownModel = runModel;
  return {
    runtime,
    profile,
    model: runtime.model,
    safety: runtime.safety!,
    agent: runtime.agent,
    async close() {
      await runtime.close();
      await ownModel.close();
      await webVia?.close();
      profile.close();
    },
  };
}

/** Prints a run as it happens: each call and its result; the answer once the run is judged (see `outcome`). */
export class RunPrinter {
  private readonly write: (text: string) => void;
  /** Calls already printed: a call resumed after approval is not shown again. */
  private readonly shownCalls = new Set<string>();
  /** The standing decision (`--yes`, `--approve`): printed once per call instead of a question. */
  private readonly standingDecision: ApprovalAnswer | undefined;

  constructor(write: (text: string) => void = (text) => process.stdout.write(text), options: { standingDecision?: ApprovalAnswer } = {}) {
    this.write = write;
    this.standingDecision = options.standingDecision;
  }

  event(event: AgentEvent): void {
    switch (event.type) {
      case "text-delta":
        // The answer is printed once the run ends, after it is judged usable (see `outcome`).
        return;
      case "tool-call":
        if (this.shownCalls.has(event.call.id)) return;
        this.shownCalls.add(event.call.id);
        this.write(`→ ${event.call.name} ${JSON.stringify(event.call.arguments)}${event.risk ? ` [${event.risk}]` : ""}\n`);
        return;
      case "model-turn":
        if (event.ranOn !== "local") this.write(`  (model turn ${event.step} ran on ${event.ranOn})\n`);
        return;
      case "tool-result":
        this.write(`  ✓ ${event.call.name}: ${shorten(JSON.stringify(event.result ?? null), 300)} (${event.durationMs} ms)\n`);
        return;
      case "tool-error":
        this.write(`  ✗ ${event.call.name}: ${event.error.code}: ${event.error.message}\n`);
        return;
      case "approval-request":
        if (this.standingDecision !== undefined) {
          this.write(`  ${this.standingDecision.approved ? "approved" : "declined"} by ${this.standingDecision.source}: ${event.request.preview}\n`);
          return;
        }
        this.write(`? ${event.request.call.name} needs approval (${event.request.reason})\n  ${event.request.preview}\n`);
        return;
      default:
        return;
    }
  }

  /** The end of a run: the answer to show (the model's words only when usable) and the verdict in one line. */
  outcome(outcome: AgentOutcome, verdict: RunVerdict): void {
    if (verdict.answer !== "" && verdict.outcome !== "needs_approval") this.write(`${verdict.answer}\n`);
    // The verdict's reason already quotes an error's message; its code is the part worth adding.
    if (outcome.error && outcome.stopReason === "error") this.write(`botpsy: [${outcome.error.code}]\n`);
    this.write(verdict.outcome === "needs_approval" ? `${pausedMessage(outcome)}\n` : `[${verdict.outcome}] ${verdict.reason}\n`);
  }
}

/**
 * Decide a paused run's requests: a standing decision (`--yes`, `--approve
 * yes|no`) decides them all (calls the rules deny never reach this point);
 * otherwise the user is asked `[y/N]` on the terminal or a pipe. With nobody
 * to ask, or once the input has ended, there is no decision: the run stays
 * paused and can be resumed.
 */
export async function decideApprovals(
  requests: readonly ApprovalRequest[],
  options: { yes?: boolean; standing?: ApprovalAnswer; ask?: (question: string) => Promise<string | undefined> },
): Promise<ApprovalDecision[] | undefined> {
  const standing = options.standing ?? (options.yes === true ? { approved: true, source: "--yes" } : undefined);
  if (standing !== undefined) return requests.map((request) => ({ requestId: request.id, approved: standing.approved }));
  if (!options.ask) return undefined;
  const decisions: ApprovalDecision[] = [];
  for (const request of requests) {
    const answer = await options.ask(`Run ${request.call.name} ${JSON.stringify(request.call.arguments)}? [y/N] `);
    if (answer === undefined) return undefined;
    decisions.push({ requestId: request.id, approved: /^y(es)?$/i.test(answer.trim()) });
  }
  return decisions;
}

/** Drive a run to its end, asking for approvals as they come; returns the final outcome. */
export async function driveRun(
  setup: AgentSetup,
  first: AgentRun,
  options: { yes?: boolean; standing?: ApprovalAnswer; printer?: RunPrinter; ask?: (question: string) => Promise<string | undefined> },
): Promise<AgentOutcome> {
  let run = first;
  while (true) {
    for await (const event of run) options.printer?.event(event);
    const outcome = await run.outcome;
    if (outcome.stopReason !== "awaiting_approval") return outcome;
    const decisions = await decideApprovals(outcome.pendingApprovals, options);
    if (!decisions) return outcome;
    run = setup.runtime.resume(outcome.runId, decisions);
  }
}

/** The run's outcome with its verdict, as `--json` prints it. */
export function outcomeJson(outcome: AgentOutcome, verdict: RunVerdict): Record<string, unknown> {
  const { answer: modelAnswer, ...rest } = outcome;
  return {
    outcome: verdict.outcome,
    reason: verdict.reason,
    exitCode: verdict.exitCode,
    answer: verdict.answer,
    ...(modelAnswer.trim() !== verdict.answer ? { modelAnswer } : {}),
    ...(verdict.answerProblem !== undefined ? { answerProblem: verdict.answerProblem } : {}),
    ...(verdict.answerCut ? { answerCut: true } : {}),
    ...rest,
  };
}

/**
 * Run `request` (or resume a paused run) to its end with the command's
 * approval sources, print it, and set the exit code from its verdict.
 */
export async function runToVerdict(
  setup: AgentSetup,
  start: (signal: AbortSignal) => AgentRun,
  request: string,
  options: AgentCommandOptions,
): Promise<RunVerdict> {
  const standing = parseApproveOption(options);
  const controller = new AbortController();
  const onInterrupt = (): void => controller.abort();
  process.once("SIGINT", onInterrupt);
  // Answers come from the terminal or a pipe; the question goes to stderr so `--json` output stays one document.
  const reader = standing === undefined ? new LineReader(process.stdin) : undefined;
  try {
    const printer = options.json ? undefined : new RunPrinter(undefined, { standingDecision: standing });
    const ask = reader ? approvalAnswerSource(reader, (text) => process.stderr.write(text)) : undefined;
    const outcome = await driveRun(setup, start(controller.signal), { standing, printer, ask });
    const verdict = judgeRun(outcome, request);
    if (options.json) process.stdout.write(`${JSON.stringify(outcomeJson(outcome, verdict), null, 2)}\n`);
    else printer?.outcome(outcome, verdict);
    process.exitCode = verdict.exitCode;
    return verdict;
  } finally {
    process.removeListener("SIGINT", onInterrupt);
    reader?.dispose();
  }
}

/** `--web-via` and the bootstrap options that reach its peer, for every command that opens the agent's profile. */
export function withWebViaOptions(command: Command): Command {
  return command
    .option("--web-via <here|peer>", "where the web apps' requests (search_web, open_page, weather, news) go out: here (this device's network) or a paired peer that runs botpsy peer serve --lend-internet (default: peer.webVia in config.json, else here)")
    .option("--bootstrap <host:port...>", "DHT bootstrap node(s) for reaching the peer (or peer.bootstrap in config.json); required when turns may be offloaded or the web goes via a peer")
    .option("--allow-remote-bootstrap", "allow bootstrap nodes off loopback (a DHT node you run on your own network)")
    .option("--peer-timeout <seconds>", "how long to wait for a paired peer to answer before the turn runs here (default 10; more on a slow or busy link)");
}

export function registerRunCommand(program: Command): void {
  const command = program
    .command("run")
    .description("Do what the request says with the local apps, asking before calls that need approval")
    .argument("<request>", 'what to do, e.g. "set an alarm for 7 am tomorrow"')
    .option("--model <name>", "catalog id, GGUF path or hf: reference (default: the best model present)")
    .option("--lora <adapter>", LORA_OPTION_DESCRIPTION)
    .option("--call-bias <logit>", CALL_BIAS_OPTION_DESCRIPTION)
    .option("--forced-call-floor <logit>", FORCED_CALL_FLOOR_OPTION_DESCRIPTION)
    .option("--max-steps <n>", "model turns allowed for the request (default 10)")
    .option("--threads <n>", "CPU threads for the model (default: llama.cpp's choice; fewer is faster on a busy machine)")
    .option("--session <id>", "continue this conversation (created when new)")
    .option("-y, --yes", "approve every call that needs approval (rules that deny still apply)")
    .option("--approve <yes|no>", "decide every call that needs approval without asking (for scripts); answers piped to stdin work too")
    .option("--require-tool", "make the model call a tool on its first turn (for models too small to decide to)")
    .option("--json", "print the outcome as JSON instead of the running display")
    .option("--verbose", "also show llama.cpp's own log lines")
    .option("--offload <never|auto|peer>", "where model turns may run: never (here), auto (a paired peer when the prompt does not fit here, or its model is ≥4× larger and the job long), or a paired peer's name (default: auto once a peer is paired)")
    .addHelpText("after", EXIT_CODE_HELP);
  withWebViaOptions(command).action(async (request: string, options: AgentCommandOptions) => {
    if (request.trim() === "") throw new InvalidInputError('The request is empty: say what to do, e.g. botpsy run "what is on my calendar today?"');
    parseApproveOption(options);
    const setup = await setUpAgent({ ...options, quiet: options.json });
    try {
      await runToVerdict(setup, (signal) => setup.runtime.run(request, { sessionId: options.session, signal }), request, options);
    } finally {
      await setup.close();
    }
  });
}

export const EXIT_CODE_HELP = `
Exit codes: 0 finished (the change was made, or the question answered), 1 failed (nothing usable was done),
2 bad input or setup, 3 paused for approval (resume with botpsy resume <run id> --approve yes|no),
4 declined by you, 5 refused by the permission rules, 130 stopped (Ctrl-C).`;

function shorten(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}…`;
}
