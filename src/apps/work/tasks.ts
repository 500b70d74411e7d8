import { z } from "zod";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { StoreTransaction } from "../../store/store.js";
import type { App } from "../app.js";
import { addDays, clockOf, parseWhen, today, type Clock } from "../time.js";

export const TASKS_APP = "tasks";
const LIST_LIMIT = 30;
const MAX_TASKS = 1000;
const PRIORITIES = ["low", "medium", "high"] as const;
type Priority = (typeof PRIORITIES)[number];
const DEFAULT_LIST = "Personal";

export interface Task {
  id: string;
  title: string;
  /** The list's id (its lower-case name). */
  list: string;
  /** YYYY-MM-DD, local to the profile. */
  due?: string;
  dueTime?: string;
  priority: Priority;
  notes?: string;
  done: boolean;
  completedAt?: string;
  createdAt: string;
}

export interface TaskList {
  id: string;
  name: string;
}

function tasks(tx: StoreTransaction) {
  return tx.collection<Task>(TASKS_APP, "tasks");
}

function lists(tx: StoreTransaction) {
  return tx.collection<TaskList>(TASKS_APP, "lists");
}

function listId(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, " ");
}

function parsePriority(text: string | undefined): Priority | undefined {
  if (text === undefined) return undefined;
  const cleaned = text.trim().toLowerCase();
  const aliases: Record<string, Priority> = { urgent: "high", important: "high", normal: "medium", med: "medium", "1": "high", "2": "medium", "3": "low" };
  const priority = (PRIORITIES as readonly string[]).includes(cleaned) ? (cleaned as Priority) : aliases[cleaned];
  if (!priority) throw new ToolError("invalid_priority", `priority="${text}" is not one of low, medium, high.`);
  return priority;
}

/** The list a call names, which must exist (create it with create_task_list first). */
function requireList(tx: StoreTransaction, name: string): TaskList {
  const found = lists(tx).get(listId(name));
  if (!found) {
    const known = lists(tx).all().map((list) => list.name);
    throw new ToolError(
      "list_not_found",
      `There is no task list "${name}". Lists: ${known.join(", ") || "none"}. Create it with create_task_list(name="${name.trim()}") or use one of these.`,
    );
  }
  return found;
}

function status(task: Task, clock: Clock): "done" | "overdue" | "due today" | "open" {
  if (task.done) return "done";
  const now = today(clock);
  if (task.due !== undefined && task.due < now) return "overdue";
  if (task.due === now) return "due today";
  return "open";
}

function summary(tx: StoreTransaction, task: Task, clock: Clock): Record<string, unknown> {
  return {
    id: task.id,
    title: task.title,
    list: lists(tx).get(task.list)?.name ?? task.list,
    ...(task.due ? { due: task.dueTime ? `${task.due} ${task.dueTime}` : task.due } : {}),
    priority: task.priority,
    status: status(task, clock),
    ...(task.notes ? { notes: task.notes } : {}),
  };
}

const PRIORITY_ORDER: Record<Priority, number> = { high: 0, medium: 1, low: 2 };

function byUrgency(a: Task, b: Task): number {
  if (a.done !== b.done) return a.done ? 1 : -1;
  const due = (a.due ?? "9999").localeCompare(b.due ?? "9999");
  return due !== 0 ? due : PRIORITY_ORDER[a.priority] - PRIORITY_ORDER[b.priority];
}

function findTask(tx: StoreTransaction, text: string): Task {
  const all = tasks(tx).all();
  const wanted = text.trim().toLowerCase();
  const byId = all.find((task) => task.id === wanted);
  if (byId) return byId;
  let matches = all.filter((task) => task.title.toLowerCase() === wanted);
  if (matches.length === 0) matches = all.filter((task) => task.title.toLowerCase().includes(wanted));
  // An open task is what a person nearly always means.
  if (matches.length > 1 && matches.filter((task) => !task.done).length === 1) matches = matches.filter((task) => !task.done);
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new ToolError("task_not_found", `No task matches "${text}". Find it with search_tasks or list_tasks and use its id.`);
  throw new ToolError("task_ambiguous", `Several tasks match "${text}": ${matches.slice(0, 8).map((task) => `${task.id} (${task.title})`).join(", ")}. Use the id.`);
}

const priorityField = z.string().describe('"low", "medium" or "high". Example: "high"');
const dueField = z.string().describe('Due date, optionally with a time. Example: "Friday", "tomorrow 5 pm" or "2026-12-10"');

const addTask = defineTool({
  name: "add_task",
  description: "Add a task (a to-do) to a task list, with an optional due date and priority.",
  input: z.object({
    title: z.string().trim().min(1).describe('Example: "Send the Q4 report"'),
    list: z.string().optional().describe(`Task list name (default "${DEFAULT_LIST}"). Example: "Work"`),
    due: dueField.optional(),
    priority: priorityField.optional(),
    notes: z.string().optional(),
  }),
  risk: "write",
  run: ({ title, list, due, priority, notes }, context) => {
    const clock = clockOf(context);
    const target = requireList(context.store, list ?? DEFAULT_LIST);
    const collection = tasks(context.store);
    if (collection.all().length >= MAX_TASKS) throw new ToolError("too_many_tasks", `You have ${MAX_TASKS} tasks. Delete finished ones with delete_task, then retry.`);
    const when = due === undefined ? undefined : parseWhen(due, clock, "due");
    const task: Task = {
      id: collection.nextId("task"),
      title,
      list: target.id,
      ...(when ? { due: when.date } : {}),
      ...(when?.time ? { dueTime: when.time } : {}),
      priority: parsePriority(priority) ?? "medium",
      ...(notes ? { notes } : {}),
      done: false,
      createdAt: clock.now.toISOString(),
    };
    collection.put(task.id, task);
    return summary(context.store, task, clock);
  },
});

const listTasks = defineTool({
  name: "list_tasks",
  description: "List tasks: of one list or all, open ones by default, most urgent first.",
  input: z.object({
    list: z.string().optional().describe('Only this list. Example: "Work"'),
    include_done: z.boolean().optional().describe("Also show finished tasks (default false)."),
    due_by: z.string().optional().describe('Only tasks due on or before this day. Example: "Friday"'),
  }),
  risk: "read",
  run: ({ list, include_done = false, due_by }, context) => {
    const clock = clockOf(context);
    const only = list === undefined ? undefined : requireList(context.store, list);
    const limit = due_by === undefined ? undefined : parseWhen(due_by, clock, "due_by").date;
    const found = tasks(context.store)
      .find((task) => (only === undefined || task.list === only.id) && (include_done || !task.done) && (limit === undefined || (task.due !== undefined && task.due <= limit)))
      .sort(byUrgency);
    return {
      ...(only ? { list: only.name } : { lists: lists(context.store).all().map((entry) => entry.name) }),
      ...(limit ? { dueBy: limit } : {}),
      tasks: found.slice(0, LIST_LIMIT).map((task) => summary(context.store, task, clock)),
      count: found.length,
      ...(found.length > LIST_LIMIT ? { more: found.length - LIST_LIMIT } : {}),
    };
  },
});

const searchTasks = defineTool({
  name: "search_tasks",
  description: "Search tasks by words in their title or notes.",
  input: z.object({ query: z.string().trim().min(1).describe('Example: "report"') }),
  risk: "read",
  run: ({ query }, context) => {
    const clock = clockOf(context);
    const wanted = query.toLowerCase();
    const found = tasks(context.store)
      .find((task) => task.title.toLowerCase().includes(wanted) || (task.notes?.toLowerCase().includes(wanted) ?? false))
      .sort(byUrgency);
    return { query, tasks: found.slice(0, LIST_LIMIT).map((task) => summary(context.store, task, clock)), count: found.length };
  },
});

const completeTask = defineTool({
  name: "complete_task",
  description: "Mark a task as done.",
  input: z.object({ task: z.string().min(1).describe('The task id or title. Example: "task-3"') }),
  risk: "write",
  run: ({ task }, context) => {
    const clock = clockOf(context);
    const found = findTask(context.store, task);
    if (found.done) throw new ToolError("already_done", `Task ${found.id} ("${found.title}") is already done.`);
    const updated = tasks(context.store).update(found.id, (current) => ({ ...current, done: true, completedAt: clock.now.toISOString() }));
    return summary(context.store, updated, clock);
  },
});

const updateTask = defineTool({
  name: "update_task",
  description: "Change a task: title, list, due date, priority, notes, or reopen it.",
  input: z.object({
    task: z.string().min(1).describe('The task id or title. Example: "task-3"'),
    title: z.string().trim().min(1).optional(),
    list: z.string().optional(),
    due: dueField.optional().describe('New due date, or "none" to clear it. Example: "Monday"'),
    priority: priorityField.optional(),
    notes: z.string().optional(),
    reopen: z.boolean().optional().describe("true to mark a done task as open again."),
  }),
  risk: "write",
  run: ({ task, title, list, due, priority, notes, reopen }, context) => {
    const clock = clockOf(context);
    const found = findTask(context.store, task);
    if ([title, list, due, priority, notes, reopen].every((value) => value === undefined)) {
      throw new ToolError("nothing_to_change", "Say what to change: title, list, due, priority, notes or reopen.");
    }
    const next: Task = structuredClone(found);
    if (title !== undefined) next.title = title;
    if (list !== undefined) next.list = requireList(context.store, list).id;
    if (due !== undefined) {
      delete next.due;
      delete next.dueTime;
      if (!["none", "no", ""].includes(due.trim().toLowerCase())) {
        const when = parseWhen(due, clock, "due");
        next.due = when.date;
        if (when.time) next.dueTime = when.time;
      }
    }
    const newPriority = parsePriority(priority);
    if (newPriority) next.priority = newPriority;
    if (notes !== undefined) next.notes = notes;
    if (reopen) {
      next.done = false;
      delete next.completedAt;
    }
    tasks(context.store).put(next.id, next);
    return summary(context.store, next, clock);
  },
});

const deleteTask = defineTool({
  name: "delete_task",
  description: "Delete a task.",
  input: z.object({ task: z.string().min(1).describe('The task id or title. Example: "task-3"') }),
  risk: "destructive",
  run: ({ task }, context) => {
    const found = findTask(context.store, task);
    tasks(context.store).delete(found.id);
    return { deleted: found.id, title: found.title };
  },
});

const createTaskList = defineTool({
  name: "create_task_list",
  description: "Create a new task list.",
  input: z.object({ name: z.string().trim().min(1).max(60).describe('Example: "Home renovation"') }),
  risk: "write",
  run: ({ name }, context) => {
    const id = listId(name);
    if (lists(context.store).get(id)) throw new ToolError("list_exists", `A task list "${name}" already exists. Add tasks to it with add_task(list="${name}").`);
    lists(context.store).put(id, { id, name });
    return { created: name, lists: lists(context.store).all().map((list) => list.name) };
  },
});

export const tasksApp: App = {
  name: TASKS_APP,
  group: "work",
  title: "Tasks",
  description: "To-do lists with due dates and priorities.",
  tools: [addTask, listTasks, searchTasks, completeTask, updateTask, deleteTask, createTaskList],
  seed(tx, environment) {
    const clock = clockOf(environment);
    const start = today(clock);
    for (const name of ["Personal", "Work", "Errands"]) lists(tx).put(listId(name), { id: listId(name), name });
    const seeded: Omit<Task, "id" | "createdAt" | "done">[] = [
      { title: "Finish the Q4 report draft", list: "work", due: addDays(start, 3), priority: "high", notes: "Priya wants the hiring plan section." },
      { title: "Review Frank's roadmap slides", list: "work", due: addDays(start, 1), priority: "medium" },
      { title: "Book flights for the Berlin trip", list: "personal", due: addDays(start, 5), priority: "medium" },
      { title: "Buy a birthday present for Mom", list: "personal", due: addDays(start, 7), priority: "high" },
      { title: "Renew the car insurance", list: "errands", due: addDays(start, -1), priority: "high" },
      { title: "Pick up dry cleaning", list: "errands", priority: "low" },
      { title: "Call the landlord about the heater", list: "personal", priority: "medium" },
      { title: "Send the pilot proposal to Omar", list: "work", due: addDays(start, 10), priority: "medium" },
    ];
    const collection = tasks(tx);
    for (const task of seeded) {
      const id = collection.nextId("task");
      collection.put(id, { id, ...task, done: false, createdAt: clock.now.toISOString() });
    }
    const finished = collection.nextId("task");
    collection.put(finished, {
      id: finished,
      title: "Pay the electricity bill",
      list: "errands",
      due: addDays(start, -3),
      priority: "medium",
      done: true,
      completedAt: clock.now.toISOString(),
      createdAt: clock.now.toISOString(),
    });
  },
  view(tx, environment) {
    const clock = clockOf(environment);
    const lines: string[] = [];
    const data: Record<string, unknown>[] = [];
    for (const list of lists(tx).all()) {
      const open = tasks(tx).find((task) => task.list === list.id && !task.done).sort(byUrgency);
      lines.push(`${list.name} (${open.length} open)`);
      for (const task of open) {
        lines.push(`  [ ] ${task.title}${task.due ? `  due ${task.due}` : ""}${task.priority === "high" ? "  !" : ""}${status(task, clock) === "overdue" ? "  OVERDUE" : ""}`);
      }
      data.push({ list: list.name, tasks: tasks(tx).find((task) => task.list === list.id).map((task) => summary(tx, task, clock)) });
    }
    return { text: lines.join("\n") || "No task lists.", data };
  },
};
