import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Store, StoreError } from "../../src/store/store.js";

const folders: string[] = [];

function temporaryPath(): string {
  const folder = mkdtempSync(join(tmpdir(), "botpsy-store-"));
  folders.push(folder);
  return join(folder, "nested", "profile.db");
}

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

interface Note {
  text: string;
}

describe("Store migrations", () => {
  it("creates the file, records the core schema version and uses WAL", () => {
    const path = temporaryPath();
    const store = Store.open(path);
    expect(store.schemaVersion("core")).toBe(1);
    expect(store.db.pragma("journal_mode", { simple: true })).toBe("wal");
    store.close();
  });

  it("applies each migration once, in order, and only the new ones after an upgrade", () => {
    const path = temporaryPath();
    const applied: number[] = [];
    const first = Store.open(path);
    first.migrate("app:test", ["CREATE TABLE widgets (id TEXT PRIMARY KEY)", () => applied.push(2)]);
    expect(first.schemaVersion("app:test")).toBe(2);
    first.close();
    const second = Store.open(path);
    second.migrate("app:test", [
      "CREATE TABLE widgets (id TEXT PRIMARY KEY)",
      () => applied.push(2),
      (db) => {
        db.exec("ALTER TABLE widgets ADD COLUMN colour TEXT");
        applied.push(3);
      },
    ]);
    expect(applied).toEqual([2, 3]);
    expect(second.schemaVersion("app:test")).toBe(3);
    const columns = second.db.prepare("PRAGMA table_info(widgets)").all() as { name: string }[];
    expect(columns.map((column) => column.name)).toEqual(["id", "colour"]);
    second.close();
  });

  it("a failing migration leaves no half step and keeps the old version", () => {
    const store = Store.open(temporaryPath());
    expect(() =>
      store.migrate("app:broken", [
        "CREATE TABLE fine (id TEXT)",
        (db) => {
          db.exec("CREATE TABLE half (id TEXT)");
          throw new Error("boom");
        },
      ]),
    ).toThrow("boom");
    expect(store.schemaVersion("app:broken")).toBe(1);
    const tables = store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('fine', 'half')").all() as { name: string }[];
    expect(tables.map((table) => table.name)).toEqual(["fine"]);
    store.close();
  });

  it("refuses a database newer than the code with an error that says to update", () => {
    const path = temporaryPath();
    const store = Store.open(path);
    store.migrate("app:test", ["SELECT 1", "SELECT 2"]);
    const error = (() => {
      try {
        store.migrate("app:test", ["SELECT 1"]);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe("store_too_new");
    expect((error as StoreError).message).toMatch(/Update botpsy/);
    store.close();
  });
});

describe("Store actions", () => {
  it("commits an action's changes together and journals them", async () => {
    const store = Store.open(":memory:");
    const outcome = await store.action({ tool: "add_notes", args: { count: 2 } }, (tx) => {
      const notes = tx.collection<Note>("notes", "items");
      notes.put(notes.nextId("note"), { text: "a" });
      notes.put(notes.nextId("note"), { text: "b" });
      return "done";
    });
    expect(outcome.value).toBe("done");
    expect(outcome.changes).toHaveLength(2);
    expect(outcome.actionId).toBe(1);
    const [entry] = store.history();
    expect(entry).toMatchObject({ tool: "add_notes", args: { count: 2 }, undone: false });
    expect(entry?.changes.map((change) => change.recordId)).toEqual(["note-1", "note-2"]);
    store.close();
  });

  it("a throwing action leaves nothing behind and runs no commit callbacks", async () => {
    const store = Store.open(":memory:");
    let committed = false;
    await expect(
      store.action({ tool: "fails", args: {} }, async (tx) => {
        tx.collection<Note>("notes", "items").put("x", { text: "half" });
        tx.setMeta("touched", "yes");
        tx.onCommit(() => {
          committed = true;
        });
        await Promise.resolve();
        throw new Error("midway");
      }),
    ).rejects.toThrow("midway");
    expect(committed).toBe(false);
    expect(store.read((tx) => tx.collection<Note>("notes", "items").all())).toEqual([]);
    expect(store.getMeta("touched")).toBeUndefined();
    expect(store.history()).toEqual([]);
    store.close();
  });

  it("a dry run returns the changes it would make and rolls them back", async () => {
    const store = Store.open(":memory:");
    let committed = false;
    const outcome = await store.action(
      { tool: "preview", args: {} },
      (tx) => {
        tx.collection<Note>("notes", "items").put("n", { text: "maybe" });
        tx.onCommit(() => {
          committed = true;
        });
        return 42;
      },
      { dryRun: true },
    );
    expect(outcome).toMatchObject({ value: 42, actionId: undefined });
    expect(outcome.changes).toEqual([{ app: "notes", collection: "items", recordId: "n", before: null, after: { text: "maybe" } }]);
    expect(committed).toBe(false);
    expect(store.read((tx) => tx.collection<Note>("notes", "items").get("n"))).toBeUndefined();
    expect(store.history()).toEqual([]);
    store.close();
  });

  it("an action that changes nothing is not journaled; writing the same value is no change", async () => {
    const store = Store.open(":memory:");
    await store.action({ tool: "put", args: {} }, (tx) => tx.collection<Note>("notes", "items").put("n", { text: "same" }));
    const outcome = await store.action({ tool: "noop", args: {} }, (tx) => tx.collection<Note>("notes", "items").put("n", { text: "same" }));
    expect(outcome.actionId).toBeUndefined();
    expect(store.history().map((action) => action.tool)).toEqual(["put"]);
    store.close();
  });

  it("runs concurrent actions one after the other", async () => {
    const store = Store.open(":memory:");
    const order: string[] = [];
    const slow = store.action({ tool: "slow", args: {} }, async (tx) => {
      order.push("slow:start");
      await new Promise((resolve) => setTimeout(resolve, 20));
      tx.collection<Note>("notes", "items").put("slow", { text: "1" });
      order.push("slow:end");
    });
    const fast = store.action({ tool: "fast", args: {} }, (tx) => {
      order.push("fast");
      tx.collection<Note>("notes", "items").put("fast", { text: "2" });
    });
    await Promise.all([slow, fast]);
    expect(order).toEqual(["slow:start", "slow:end", "fast"]);
    store.close();
  });

  it("collections keep insertion order; update throws on a missing record; ids are never reused", async () => {
    const store = Store.open(":memory:");
    await store.action({ tool: "fill", args: {} }, (tx) => {
      const notes = tx.collection<Note>("notes", "items");
      for (const id of ["c", "a", "b"]) notes.put(id, { text: id });
      notes.update("a", (note) => ({ text: `${note.text}!` }));
      expect(notes.all().map((note) => note.text)).toEqual(["c", "a!", "b"]);
      expect(notes.find((note) => note.text.startsWith("b"))).toEqual([{ text: "b" }]);
      expect(() => notes.update("zz", (note) => note)).toThrow(/does not exist/);
      expect(notes.delete("zz")).toBe(false);
    });
    await store.action({ tool: "make", args: {} }, (tx) => tx.collection<Note>("notes", "items").put(tx.collection("notes", "items").nextId("note"), { text: "x" }));
    await store.undo();
    const next = await store.action({ tool: "make", args: {} }, (tx) => tx.collection<Note>("notes", "items").nextId("note"));
    expect(next.value).toBe("note-2");
    store.close();
  });

  it("refuses actions on a closed store", async () => {
    const store = Store.open(":memory:");
    store.close();
    await expect(store.action({ tool: "late", args: {} }, () => undefined)).rejects.toMatchObject({ code: "store_closed" });
  });
});

describe("Store undo", () => {
  it("reverts the last actions newest first, restoring, removing and re-creating records", async () => {
    const store = Store.open(":memory:");
    const notes = (tx: Parameters<Parameters<Store["read"]>[0]>[0]) => tx.collection<Note>("notes", "items");
    await store.action({ tool: "create", args: {} }, (tx) => notes(tx).put("a", { text: "one" }));
    await store.action({ tool: "edit", args: {} }, (tx) => notes(tx).put("a", { text: "two" }));
    await store.action({ tool: "remove", args: {} }, (tx) => notes(tx).delete("a"));
    await store.action({ tool: "other", args: {} }, (tx) => notes(tx).put("b", { text: "b" }));

    expect((await store.undo(2)).map((action) => action.tool)).toEqual(["other", "remove"]);
    expect(store.read((tx) => notes(tx).all())).toEqual([{ text: "two" }]);
    expect((await store.undo()).map((action) => action.tool)).toEqual(["edit"]);
    expect(store.read((tx) => notes(tx).get("a"))).toEqual({ text: "one" });
    await store.undo();
    expect(store.read((tx) => notes(tx).all())).toEqual([]);
    expect(await store.undo()).toEqual([]);
    expect(store.history({ includeUndone: true }).every((action) => action.undone)).toBe(true);
    store.close();
  });

  it("undoes only one session's actions when asked", async () => {
    const store = Store.open(":memory:");
    await store.action({ tool: "mine", args: {}, sessionId: "s1" }, (tx) => tx.collection<Note>("notes", "items").put("m", { text: "m" }));
    await store.action({ tool: "theirs", args: {}, sessionId: "s2" }, (tx) => tx.collection<Note>("notes", "items").put("t", { text: "t" }));
    const undone = await store.undo(1, { sessionId: "s1" });
    expect(undone.map((action) => action.tool)).toEqual(["mine"]);
    expect(store.read((tx) => tx.collection<Note>("notes", "items").all())).toEqual([{ text: "t" }]);
    store.close();
  });

  it("refuses to undo over a later change and reverts nothing of that action", async () => {
    const store = Store.open(":memory:");
    await store.action({ tool: "create", args: {} }, (tx) => {
      tx.collection<Note>("notes", "items").put("a", { text: "a1" });
      tx.collection<Note>("notes", "items").put("b", { text: "b1" });
    });
    // A change made outside the journal (another app writing directly).
    store.db.prepare("UPDATE records SET data = ? WHERE id = 'b'").run(JSON.stringify({ text: "edited" }));
    const error = await store.undo().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe("undo_conflict");
    expect((error as StoreError).message).toMatch(/notes\/items\/b/);
    expect(store.read((tx) => tx.collection<Note>("notes", "items").all())).toEqual([{ text: "a1" }, { text: "edited" }]);
    expect(store.history()[0]?.undone).toBe(false);
    store.close();
  });

  it("external changes are undone by their registered handler, and refused without one", async () => {
    const store = Store.open(":memory:");
    const restored: unknown[] = [];
    await store.action({ tool: "touch_file", args: {} }, (tx) => tx.recordExternal({ kind: "file", payload: { path: "a.txt" } }));
    const missing = await store.undo().catch((caught: unknown) => caught);
    expect((missing as StoreError).code).toBe("undo_unavailable");
    store.registerUndoHandler("file", (payload) => restored.push(payload));
    expect((await store.undo()).map((action) => action.tool)).toEqual(["touch_file"]);
    expect(restored).toEqual([{ path: "a.txt" }]);
    store.close();
  });

  it("undoes a record changed several times in one action", async () => {
    const store = Store.open(":memory:");
    await store.action({ tool: "create", args: {} }, (tx) => tx.collection<Note>("notes", "items").put("a", { text: "v1" }));
    await store.action({ tool: "twice", args: {} }, (tx) => {
      const notes = tx.collection<Note>("notes", "items");
      notes.put("a", { text: "v2" });
      notes.update("a", () => ({ text: "v3" }));
    });
    await store.undo();
    expect(store.read((tx) => tx.collection<Note>("notes", "items").get("a"))).toEqual({ text: "v1" });
    store.close();
  });

  it("checks every external change before reverting any, so a late conflict leaves the action whole", async () => {
    const store = Store.open(":memory:");
    const reverted: string[] = [];
    store.registerUndoHandler(
      "thing",
      (payload) => reverted.push((payload as { name: string }).name),
      (payload) => {
        if ((payload as { name: string }).name === "first") throw new StoreError("undo_conflict", "first changed since");
      },
    );
    await store.action({ tool: "two_things", args: {} }, (tx) => {
      tx.recordExternal({ kind: "thing", payload: { name: "first" } });
      tx.recordExternal({ kind: "thing", payload: { name: "second" } });
    });
    await expect(store.undo()).rejects.toMatchObject({ code: "undo_conflict" });
    // Undo goes newest first: without the check "second" would have been reverted already.
    expect(reverted).toEqual([]);
    expect(store.history()[0]?.undone).toBe(false);
    store.close();
  });

  it("the journal survives a reopen, so undo works in a later process", async () => {
    const path = temporaryPath();
    const first = Store.open(path);
    await first.action({ tool: "create", args: { text: "kept" } }, (tx) => tx.collection<Note>("notes", "items").put("a", { text: "kept" }));
    first.close();
    const second = Store.open(path);
    expect(second.history()[0]).toMatchObject({ tool: "create", args: { text: "kept" } });
    await second.undo();
    expect(second.read((tx) => tx.collection<Note>("notes", "items").all())).toEqual([]);
    second.close();
  });
});
