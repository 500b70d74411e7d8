import { z } from "zod";
import type { StoreTransaction } from "../../store/store.js";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { App } from "../app.js";
import { zonedParts } from "../time.js";
import { capped, looseEnum, looseNumber } from "../shared.js";
import { addDays, clockOf, localDate, parsePastDay } from "../time.js";

export const FITNESS_APP = "fitness";

export const WORKOUT_TYPES = ["running", "walking", "cycling", "swimming", "yoga", "strength", "hiking", "rowing", "football", "dancing"] as const;
export type WorkoutType = (typeof WORKOUT_TYPES)[number];

export const GOAL_KINDS = ["daily_steps", "weekly_active_minutes", "weekly_workouts", "weekly_distance_km"] as const;
export type GoalKind = (typeof GOAL_KINDS)[number];

export interface Workout {
  id: string;
  /** YYYY-MM-DD, local. */
  date: string;
  type: WorkoutType;
  minutes: number;
  distanceKm?: number;
  calories: number;
  note?: string;
}

export interface StepDay {
  date: string;
  steps: number;
}

export interface Goal {
  kind: GoalKind;
  target: number;
}

/** Energy per activity (MET), for a calorie estimate at the persona's 70 kg. */
const MET: Record<WorkoutType, number> = {
  running: 9.8,
  walking: 3.5,
  cycling: 7.5,
  swimming: 8,
  yoga: 3,
  strength: 5,
  hiking: 6,
  rowing: 7,
  football: 7,
  dancing: 5,
};
const BODY_KG = 70;
const MAX_STEPS_PER_DAY = 100_000;
const DISTANCE_TYPES = new Set<WorkoutType>(["running", "walking", "cycling", "swimming", "hiking", "rowing"]);

const workouts = (tx: StoreTransaction) => tx.collection<Workout>(FITNESS_APP, "workouts");
const steps = (tx: StoreTransaction) => tx.collection<StepDay>(FITNESS_APP, "steps");
const goals = (tx: StoreTransaction) => tx.collection<Goal>(FITNESS_APP, "goals");

function calories(type: WorkoutType, minutes: number): number {
  return Math.round(MET[type] * BODY_KG * (minutes / 60));
}

/** Monday of the week holding `date`. */
function weekStart(date: string): string {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  return addDays(date, -((weekday + 6) % 7));
}

const workoutResult = (workout: Workout) => ({
  id: workout.id,
  date: workout.date,
  type: workout.type,
  minutes: workout.minutes,
  distance_km: workout.distanceKm,
  calories: workout.calories,
});

function progress(tx: StoreTransaction, today: string) {
  const start = weekStart(today);
  const week = workouts(tx)
    .all()
    .filter((workout) => workout.date >= start && workout.date <= today);
  const activeMinutes = week.reduce((sum, workout) => sum + workout.minutes, 0);
  const distance = Math.round(week.reduce((sum, workout) => sum + (workout.distanceKm ?? 0), 0) * 10) / 10;
  const todaySteps = steps(tx).get(today)?.steps ?? 0;
  const actual: Record<GoalKind, number> = {
    daily_steps: todaySteps,
    weekly_active_minutes: activeMinutes,
    weekly_workouts: week.length,
    weekly_distance_km: distance,
  };
  return {
    today,
    week_from: start,
    steps_today: todaySteps,
    workouts_this_week: week.length,
    active_minutes_this_week: activeMinutes,
    distance_km_this_week: distance,
    calories_this_week: week.reduce((sum, workout) => sum + workout.calories, 0),
    goals: goals(tx)
      .all()
      .map((goal) => ({
        goal: goal.kind,
        target: goal.target,
        done: actual[goal.kind],
        percent: Math.min(999, Math.round((actual[goal.kind] / goal.target) * 100)),
        met: actual[goal.kind] >= goal.target,
      })),
  };
}

const logWorkout = defineTool({
  name: "log_workout",
  description: "Record a workout you did (running, walking, cycling, swimming, yoga, strength…), today or on a past day.",
  input: z.object({
    type: looseEnum(WORKOUT_TYPES).describe(`Kind of workout: ${WORKOUT_TYPES.join(", ")}`),
    minutes: looseNumber(z.number().int().min(1).max(600)).describe("How long, in minutes, e.g. 30"),
    distance_km: looseNumber(z.number().positive().max(500)).optional().describe("Distance in km, e.g. 5"),
    date: z.string().optional().describe('When, e.g. "today" (default), "yesterday" or "2026-11-29"'),
    note: z.string().max(200).optional().describe('A note, e.g. "easy pace"'),
  }),
  risk: "write",
  run: ({ type, minutes, distance_km, date, note }, context) => {
    const day = date === undefined ? localDate(context.now(), context.timeZone) : parsePastDay(date, clockOf(context), "date");
    if (distance_km !== undefined && !DISTANCE_TYPES.has(type)) {
      throw new ToolError("invalid_argument", `A ${type} workout has no distance. Leave distance_km out, or use a type such as running or cycling.`);
    }
    if (distance_km !== undefined && distance_km / (minutes / 60) > (type === "cycling" ? 60 : 25)) {
      throw new ToolError("implausible_workout", `${distance_km} km in ${minutes} minutes is faster than anyone ${type === "cycling" ? "cycles" : "moves"}. Check the distance (km) and minutes.`);
    }
    const id = workouts(context.store).nextId("workout");
    const workout: Workout = {
      id,
      date: day,
      type,
      minutes,
      calories: calories(type, minutes),
      ...(distance_km === undefined ? {} : { distanceKm: distance_km }),
      ...(note === undefined ? {} : { note }),
    };
    workouts(context.store).put(id, workout);
    const today = localDate(context.now(), context.timeZone);
    return { logged: workoutResult(workout), this_week: { workouts: progress(context.store, today).workouts_this_week, active_minutes: progress(context.store, today).active_minutes_this_week } };
  },
});

const listWorkouts = defineTool({
  name: "list_workouts",
  description: "List your recent workouts, newest first.",
  input: z.object({ days: looseNumber(z.number().int().min(1).max(365)).optional().describe("How many days back, e.g. 7 (default 14)") }),
  risk: "read",
  run: ({ days }, context) => {
    const today = localDate(context.now(), context.timeZone);
    const since = addDays(today, -(days ?? 14) + 1);
    const found = workouts(context.store)
      .all()
      .filter((workout) => workout.date >= since && workout.date <= today)
      .sort((a, b) => b.date.localeCompare(a.date) || b.id.localeCompare(a.id));
    const list = capped(found, 15);
    return { since, workouts: list.items.map(workoutResult), more: list.more, total_minutes: found.reduce((sum, workout) => sum + workout.minutes, 0) };
  },
});

const deleteWorkout = defineTool({
  name: "delete_workout",
  description: "Delete a workout logged by mistake, by its id.",
  input: z.object({ workout_id: z.string().describe('Workout id from list_workouts, e.g. "workout-3"') }),
  risk: "destructive",
  run: ({ workout_id }, context) => {
    const id = workout_id.trim().toLowerCase();
    const workout = workouts(context.store).get(id);
    if (workout === undefined) throw new ToolError("workout_not_found", `No workout "${workout_id}". See ids with list_workouts.`);
    workouts(context.store).delete(id);
    return { deleted: workoutResult(workout) };
  },
});

const logSteps = defineTool({
  name: "log_steps",
  description: "Add steps walked to a day's count (today by default).",
  input: z.object({
    steps: looseNumber(z.number().int().min(1).max(MAX_STEPS_PER_DAY)).describe("Steps to add, e.g. 3500"),
    date: z.string().optional().describe('Day, e.g. "today" (default) or "yesterday"'),
  }),
  risk: "write",
  run: ({ steps: count, date }, context) => {
    const day = date === undefined ? localDate(context.now(), context.timeZone) : parsePastDay(date, clockOf(context), "date");
    const record = steps(context.store).get(day) ?? { date: day, steps: 0 };
    const total = record.steps + count;
    if (total > MAX_STEPS_PER_DAY) {
      throw new ToolError("implausible_steps", `That makes ${total} steps on ${day}, more than the ${MAX_STEPS_PER_DAY} a day the app accepts. Check the number.`);
    }
    steps(context.store).put(day, { date: day, steps: total });
    const goal = goals(context.store).get("daily_steps");
    return { date: day, added: count, steps: total, daily_goal: goal?.target, goal_met: goal === undefined ? undefined : total >= goal.target };
  },
});

const setFitnessGoal = defineTool({
  name: "set_fitness_goal",
  description: "Set a fitness goal: daily steps, weekly active minutes, weekly workouts or weekly distance in km.",
  input: z.object({
    goal: looseEnum(GOAL_KINDS).describe(`Which goal: ${GOAL_KINDS.join(", ")}`),
    target: looseNumber(z.number().positive()).describe("Target, e.g. 10000 steps or 150 minutes"),
  }),
  risk: "write",
  run: ({ goal, target }, context) => {
    const limits: Record<GoalKind, number> = { daily_steps: MAX_STEPS_PER_DAY, weekly_active_minutes: 3000, weekly_workouts: 30, weekly_distance_km: 1000 };
    if (target > limits[goal]) throw new ToolError("invalid_argument", `A ${goal} target of ${target} is not realistic; use ${limits[goal]} or less.`);
    const rounded = goal === "weekly_distance_km" ? Math.round(target * 10) / 10 : Math.round(target);
    const previous = goals(context.store).get(goal)?.target;
    goals(context.store).put(goal, { kind: goal, target: rounded });
    const current = progress(context.store, localDate(context.now(), context.timeZone)).goals.find((entry) => entry.goal === goal);
    return { goal, target: rounded, previous, progress: current };
  },
});

const getFitnessProgress = defineTool({
  name: "get_fitness_progress",
  description: "Show today's steps and this week's workouts against your goals.",
  input: z.object({}),
  risk: "read",
  run: (_args, context) => {
    const today = localDate(context.now(), context.timeZone);
    const result = progress(context.store, today);
    const lastWeek = Array.from({ length: 7 }, (_, index) => addDays(today, index - 6)).map((date) => ({ date, steps: steps(context.store).get(date)?.steps ?? 0 }));
    return { ...result, steps_last_7_days: lastWeek };
  },
});

export const fitnessApp: App = {
  name: FITNESS_APP,
  group: "life",
  title: "Fitness",
  description: "Workouts, steps and goals, with weekly progress.",
  tools: [logWorkout, listWorkouts, deleteWorkout, logSteps, setFitnessGoal, getFitnessProgress],
  seed(tx, environment) {
    const today = localDate(environment.now(), environment.timeZone);
    const hour = zonedParts(environment.now(), environment.timeZone).hour;
    const plan: [number, WorkoutType, number, number?][] = [
      [-13, "running", 32, 5.2],
      [-11, "yoga", 45],
      [-10, "cycling", 60, 18.5],
      [-8, "strength", 40],
      [-6, "running", 35, 5.8],
      [-4, "swimming", 30, 1.2],
      [-3, "walking", 50, 4.1],
      [-1, "running", 28, 4.6],
    ];
    for (const [days, type, minutes, distanceKm] of plan) {
      const id = workouts(tx).nextId("workout");
      workouts(tx).put(id, { id, date: addDays(today, days), type, minutes, calories: calories(type, minutes), ...(distanceKm === undefined ? {} : { distanceKm }) });
    }
    const daily = [8421, 10234, 6120, 12877, 9050, 7340, 11002, 5480, 9876, 10511, 4320, 8890, 10120];
    daily.forEach((count, index) => {
      const date = addDays(today, index - daily.length);
      steps(tx).put(date, { date, steps: count });
    });
    // Steps so far today grow with the hour the profile was made, so a morning demo is not a finished day.
    steps(tx).put(today, { date: today, steps: Math.min(12_000, hour * 420) });
    for (const [kind, target] of [
      ["daily_steps", 10000],
      ["weekly_active_minutes", 150],
      ["weekly_workouts", 3],
    ] as const) {
      goals(tx).put(kind, { kind, target });
    }
  },
  view(tx, environment) {
    const today = localDate(environment.now(), environment.timeZone);
    const result = progress(tx, today);
    const recent = workouts(tx)
      .all()
      .filter((workout) => workout.date <= today)
      .sort((a, b) => b.date.localeCompare(a.date))
      .slice(0, 6);
    const text = [
      `Today (${today}): ${result.steps_today} steps`,
      `This week (from ${result.week_from}): ${result.workouts_this_week} workouts, ${result.active_minutes_this_week} active minutes, ${result.distance_km_this_week} km`,
      "Goals:",
      ...(result.goals.length === 0 ? ["  none"] : result.goals.map((goal) => `  ${goal.goal.replace(/_/g, " ")}: ${goal.done} / ${goal.target} (${goal.percent}%)${goal.met ? " ✓" : ""}`)),
      "Recent workouts:",
      ...recent.map((workout) => `  ${workout.date}  ${workout.type.padEnd(9)} ${String(workout.minutes).padStart(3)} min${workout.distanceKm ? `  ${workout.distanceKm} km` : ""}  ${workout.calories} kcal`),
    ].join("\n");
    return { text, data: { ...result, recentWorkouts: recent.map(workoutResult) } };
  },
};
