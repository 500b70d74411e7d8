import { spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * 1,000 malformed requests against a server in a process of its own: bad
 * JSON, wrong types, huge bodies (declared and chunked), deep nesting, wrong
 * content types and routes, garbage that is not HTTP, streams the client
 * aborts, and clients too slow to finish their request. The process must
 * survive all of them, never answer 500, and still answer a good request.
 */
let child: ChildProcess;
let port: number;
let childExit: number | null | undefined;

beforeAll(async () => {
  child = spawn(process.execPath, ["--import", "tsx", resolve("test/server/fixtures/scripted-server.ts")], { cwd: resolve("."), stdio: ["ignore", "pipe", "pipe"] });
  child.on("exit", (code) => {
    childExit = code;
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = await new Promise<string>((done, fail) => {
    let stdout = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split("\n")[0];
      if (stdout.includes("\n") && line) done(line.trim());
    });
    child.once("exit", () => fail(new Error(`the server exited before listening: ${stderr}`)));
  });
  port = Number(new URL(url).port);
}, 60_000);

afterAll(() => {
  child.kill("SIGTERM");
});

type Ending = { status: number } | { closed: "server" | "reset" | "client" };

/** Sends raw bytes and reads until the server answers or closes; `abortAfterMs` ends the exchange from the client's side. */
function exchange(payload: (write: (data: string | Buffer) => boolean) => void, options: { abortOnFirstByte?: boolean; stallMs?: number } = {}): Promise<Ending> {
  return new Promise((done) => {
    const socket = connect({ host: "127.0.0.1", port });
    let received = "";
    let settled = false;
    const settle = (ending: Ending): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      done(ending);
    };
    socket.setTimeout(20_000, () => settle({ closed: "client" }));
    socket.on("connect", () => payload((data) => socket.write(data)));
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
      if (options.abortOnFirstByte) {
        settle({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0) });
        return;
      }
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (match && received.includes("\r\n\r\n")) settle({ status: Number(match[1]) });
    });
    // A server that answered and closed while the client was still sending can reset the socket after its answer arrived: the answer counts.
    socket.on("error", () => {
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
      settle(match ? { status: Number(match[1]) } : { closed: "reset" });
    });
    socket.on("close", () => {
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
      settle(match ? { status: Number(match[1]) } : { closed: "server" });
    });
  });
}

function post(path: string, body: string | Buffer, headers: Record<string, string> = {}): (write: (data: string | Buffer) => boolean) => void {
  const head = Object.entries({ "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)), ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  return (write) => {
    write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${head}\r\n`);
    write(body);
  };
}

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const good = JSON.stringify({ model: "scripted", messages: [{ role: "user", content: "hi" }] });
const goodStream = JSON.stringify({ model: "scripted", messages: [{ role: "user", content: "hi" }], stream: true });

function attacks(): { kind: string; run: () => Promise<Ending> }[] {
  const next = random(14);
  const list: { kind: string; run: () => Promise<Ending> }[] = [];
  const add = (kind: string, count: number, make: (index: number) => () => Promise<Ending>): void => {
    for (let index = 0; index < count; index++) list.push({ kind, run: make(index) });
  };
  add("bad JSON", 150, () => {
    const bytes = Buffer.from(Array.from({ length: 1 + Math.floor(next() * 400) }, () => Math.floor(next() * 256)));
    return () => exchange(post("/v1/chat/completions", Buffer.concat([Buffer.from("{"), bytes])));
  });
  const wrongTypes: unknown[] = [
    { model: 1, messages: [] },
    { model: "scripted", messages: "hi" },
    { model: "scripted", messages: [{ role: "robot", content: "x" }] },
    { model: "scripted", messages: [{ role: "user", content: 5 }] },
    { model: "scripted", messages: [{ role: "user", content: "x" }], tools: [{ type: "function", function: { name: 3 } }] },
    { model: "scripted", messages: [{ role: "user", content: "x" }], tool_choice: "always" },
    { model: "scripted", messages: [{ role: "user", content: "x" }], max_tokens: -4 },
    { model: "scripted", messages: [{ role: "user", content: "x" }], stop: [1, 2] },
    { model: "scripted", messages: [{ role: "user", content: "x" }], response_format: { type: "json_schema" } },
    { model: "scripted", messages: [{ role: "tool", content: "x", tool_call_id: "missing" }] },
    [1, 2, 3],
    "just a string",
    null,
  ];
  add("wrong types", 150, (index) => () => exchange(post(index % 2 === 0 ? "/v1/chat/completions" : "/v1/agent/runs", JSON.stringify(wrongTypes[index % wrongTypes.length]))));
  add("huge body, declared", 100, () => () => exchange(post("/v1/chat/completions", Buffer.alloc(200 * 1024, 0x20))));
  // Chunked bodies of 128 KiB to 768 KiB: the server must read away what is left of a refused body before it
  // closes, or the client's kernel may receive a reset that destroys the 413 before the client reads it.
  add("huge body, chunked", 100, (index) => () =>
    exchange((write) => {
      write("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
      const piece = Buffer.alloc(16 * 1024, 0x20);
      for (let chunk = 0; chunk < 8 * (1 + (index % 6)); chunk++) write(Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")]));
      write("0\r\n\r\n");
    }),
  );
  add("deep nesting", 100, (index) => () => exchange(post("/v1/chat/completions", `{"a":${"[".repeat(100 + index * 50)}${"]".repeat(100 + index * 50)}}`)));
  add("wrong content type, method or route", 100, (index) => {
    const cases = [
      post("/v1/chat/completions", good, { "Content-Type": "text/plain" }),
      post("/v1/nowhere", good),
      post("/v1/models", good),
      (write: (data: string) => boolean) => write("DELETE /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
      post("/../../etc/passwd", good),
    ];
    return () => exchange(cases[index % cases.length]!);
  });
  add("not HTTP", 100, () => {
    const bytes = Buffer.from(Array.from({ length: 1 + Math.floor(next() * 200) }, () => Math.floor(next() * 256)));
    return () => exchange((write) => write(Buffer.concat([bytes, Buffer.from("\r\n\r\n")])));
  });
  add("aborted stream", 100, () => () => exchange(post("/v1/chat/completions", goodStream), { abortOnFirstByte: true }));
  add("slow client", 50, (index) => () =>
    exchange((write) => {
      if (index % 2 === 0) write("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      else write(`POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":`);
    }),
  );
  add("good request", 50, () => () => exchange(post("/v1/chat/completions", good)));
  return list;
}

describe("1,000 malformed requests", () => {
  it("never crash the server, never get a 500, and the server still answers", async () => {
    const list = attacks();
    expect(list).toHaveLength(1000);
    const outcomes = new Map<string, Map<string, number>>();
    const started = Date.now();
    // 25 at a time: enough to overlap slow clients with the rest, few enough for a small machine.
    for (let offset = 0; offset < list.length; offset += 25) {
      const batch = list.slice(offset, offset + 25);
      const endings = await Promise.all(batch.map((attack) => attack.run()));
      batch.forEach((attack, index) => {
        const ending = endings[index]!;
        const key = "status" in ending ? String(ending.status) : `closed by ${ending.closed}`;
        const counts = outcomes.get(attack.kind) ?? new Map<string, number>();
        counts.set(key, (counts.get(key) ?? 0) + 1);
        outcomes.set(attack.kind, counts);
      });
    }
    const table = [...outcomes].map(([kind, counts]) => `${kind.padEnd(36)} ${[...counts].map(([key, count]) => `${key}×${count}`).join(", ")}`);
    process.stdout.write(`malformed requests (${Date.now() - started} ms):\n${table.join("\n")}\n`);

    expect(childExit, "the server process exited").toBeUndefined();
    for (const [kind, counts] of outcomes) expect(counts.get("500") ?? 0, `${kind} got a 500`).toBe(0);
    expect(outcomes.get("good request")!.get("200")).toBe(50);
    expect([...outcomes.get("bad JSON")!.keys()]).toEqual(["400"]);
    expect([...outcomes.get("deep nesting")!.keys()].every((key) => key === "400" || key === "413")).toBe(true);
    expect(outcomes.get("huge body, declared")!.get("413")).toBe(100);
    expect(outcomes.get("huge body, chunked")!.get("413")).toBe(100);
    expect([...outcomes.get("wrong types")!.keys()]).toEqual(["400"]);
    expect([...outcomes.get("not HTTP")!.keys()]).toEqual(["400"]);
    expect(outcomes.get("slow client")!.get("408")).toBe(50);

    const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: good });
    expect(response.status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/v1/models`)).status).toBe(200);
  }, 240_000);
});
