import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, writeSettings } from "../../src/apps/device/connectivity.js";
import { shoppingApp } from "../../src/apps/errands/shopping.js";
import { contactsApp } from "../../src/apps/messages/contacts.js";
import { fitnessApp } from "../../src/apps/life/fitness.js";
import { lifeApps } from "../../src/apps/life/index.js";
import { musicApp } from "../../src/apps/life/music.js";
import { photosApp } from "../../src/apps/life/photos.js";
import { RECIPES } from "../../src/apps/life/recipe-book.js";
import { recipesApp } from "../../src/apps/life/recipes.js";
import { videoApp } from "../../src/apps/life/video.js";
import { risks, TestProfiles, toolFailure, toolFinder, toolRunner } from "./support.js";

const APPS = [...lifeApps, shoppingApp];
const profiles = new TestProfiles({ apps: APPS, home: tmpdir() }, "botpsy-life-");

const tool = toolFinder(...APPS);

const call = toolRunner(tool);
const failure = toolFailure(tool);

afterEach(() => profiles.closeAll());

describe("life group", () => {
  it("has unique, specific tool names and readable views", () => {
    const names = lifeApps.flatMap((app) => app.tools.map((candidate) => candidate.name));
    expect(new Set(names).size).toBe(names.length);
    const profile = profiles.open();
    for (const app of lifeApps) {
      expect(app.group).toBe("life");
      const view = profile.store.read((tx) => app.view(tx, profile.environment));
      expect(view.text.length).toBeGreaterThan(20);
      expect(() => JSON.stringify(view.data)).not.toThrow();
    }
  });
});

describe("music app", () => {
  it("declares risk classes", () => {
    expect(risks(musicApp)).toEqual({
      search_music: "read",
      play_music: "write",
      pause_music: "write",
      resume_music: "write",
      skip_track: "write",
      queue_track: "write",
      get_now_playing: "read",
      set_music_volume: "write",
      list_playlists: "read",
      create_playlist: "write",
      add_to_playlist: "write",
      remove_from_playlist: "write",
    });
  });

  it("searches a library of sixty songs", async () => {
    const profile = profiles.open();
    const jazz = await call(profile, "search_music", { query: "jazz", kind: "Genre" });
    expect((jazz.tracks as { album: string }[]).every((track) => track.album === "Quiet Rooms")).toBe(true);
    const all = await call(profile, "search_music", { query: "" });
    expect((all.tracks as unknown[]).length + Number(all.more)).toBe(60);
    expect((await failure(profile, "search_music", { query: "polka" })).code).toBe("no_results");
  });

  it("plays, pauses, resumes and skips through an album", async () => {
    const profile = profiles.open();
    const playing = await call(profile, "play_music", { query: "Neon Gardens" });
    expect(playing).toMatchObject({ state: "playing", source: "album Neon Gardens", track: { title: "Neon Gardens" }, queued: 4 });
    expect(await call(profile, "pause_music")).toMatchObject({ state: "paused" });
    expect((await failure(profile, "pause_music")).code).toBe("not_playing");
    expect(await call(profile, "resume_music")).toMatchObject({ state: "playing" });
    expect((await failure(profile, "resume_music")).code).toBe("already_playing");
    expect(await call(profile, "skip_track", { count: 2 })).toMatchObject({ track: { title: "Golden Hour" }, queued: 2 });
    const tooFar = await failure(profile, "skip_track", { count: 5 });
    expect(tooFar.code).toBe("queue_empty");
    await call(profile, "skip_track", { count: 2 });
    const end = await failure(profile, "skip_track");
    expect(end.message).toContain("queue_track");
    expect((await failure(profile, "play_music", { query: "Nonexistent Song Title" })).code).toBe("not_found");
  });

  it("queues a song next and sets its own volume", async () => {
    const profile = profiles.open();
    const queued = await call(profile, "queue_track", { track: "Desk Lamp", next: true });
    expect((queued.up_next as string[])[0]).toBe("Desk Lamp");
    expect(await call(profile, "set_music_volume", { level: "30" })).toEqual({ volume: 30, previous: 45 });
    await expect(profile.runTool(tool("set_music_volume"), { level: 150 })).rejects.toThrow();
    expect(await call(profile, "get_now_playing")).toMatchObject({ state: "paused", volume: 30, track: { title: "Harbour Lights" } });
  });

  it("creates and edits playlists, refusing duplicates", async () => {
    const profile = profiles.open();
    expect(await call(profile, "create_playlist", { name: "Road trip", tracks: ["Highway Nine", "Dust Roads"] })).toMatchObject({ tracks: ["Highway Nine", "Dust Roads"] });
    expect((await failure(profile, "create_playlist", { name: "road trip" })).code).toBe("playlist_exists");
    expect(await call(profile, "add_to_playlist", { playlist: "Road trip", track: "Thunder Mile" })).toMatchObject({ tracks: 3 });
    expect((await failure(profile, "add_to_playlist", { playlist: "Road trip", track: "Thunder Mile" })).code).toBe("already_in_playlist");
    expect(await call(profile, "remove_from_playlist", { playlist: "road trip", track: "Dust Roads" })).toMatchObject({ removed: "Dust Roads", tracks: 2 });
    expect((await failure(profile, "remove_from_playlist", { playlist: "Road trip", track: "Golden Hour" })).code).toBe("not_found");
    expect((await failure(profile, "add_to_playlist", { playlist: "Gym", track: "Golden Hour" })).code).toBe("not_found");
    const listed = await call(profile, "list_playlists", { playlist: "Road trip" });
    expect((listed.tracks as { title: string }[]).map((track) => track.title)).toEqual(["Highway Nine", "Thunder Mile"]);
    expect(await call(profile, "play_music", { query: "Road trip" })).toMatchObject({ source: "playlist Road trip", track: { title: "Highway Nine" } });
  });

  it("keeps playlists across a reopened database, and undo removes the last change", async () => {
    const path = profiles.temporaryDatabase();
    const first = profiles.open({ databasePath: path });
    await call(first, "create_playlist", { name: "Dinner" });
    await call(first, "add_to_playlist", { playlist: "Dinner", track: "Late Espresso" });
    first.close();
    const second = profiles.open({ databasePath: path });
    expect(((await call(second, "list_playlists")).playlists as { name: string; tracks: number }[]).find((list) => list.name === "Dinner")?.tracks).toBe(1);
    await second.store.undo();
    expect((await call(second, "list_playlists", { playlist: "Dinner" })).tracks).toEqual([]);
    expect((await failure(second, "play_music", { query: "Dinner" })).code).toBe("playlist_empty");
  });
});

describe("video app", () => {
  it("declares risk classes", () => {
    expect(risks(videoApp)).toEqual({
      search_videos: "read",
      play_video: "write",
      pause_video: "write",
      add_to_watch_list: "write",
      remove_from_watch_list: "write",
      list_watch_list: "read",
    });
  });

  it("searches, plays and pauses", async () => {
    const profile = profiles.open();
    const documentaries = await call(profile, "search_videos", { kind: "Documentary" });
    expect((documentaries.videos as { kind: string }[]).every((video) => video.kind === "documentary")).toBe(true);
    expect((await failure(profile, "pause_video")).code).toBe("not_playing");
    expect(await call(profile, "play_video", { title: "orbit nine" })).toMatchObject({ playing: { title: "Orbit Nine" } });
    expect(await call(profile, "pause_video")).toEqual({ paused: "Orbit Nine" });
    expect((await failure(profile, "play_video", { title: "Gone with the Code" })).code).toBe("not_found");
    expect((await failure(profile, "search_videos", { query: "western" })).code).toBe("no_results");
  });

  it("keeps a watch list that persists, and undo reverts it", async () => {
    const path = profiles.temporaryDatabase();
    const first = profiles.open({ databasePath: path });
    expect(await call(first, "add_to_watch_list", { title: "Red Line" })).toEqual({ added: "Red Line", watch_list_size: 4 });
    expect((await failure(first, "add_to_watch_list", { title: "Red Line" })).code).toBe("already_in_watch_list");
    expect(await call(first, "remove_from_watch_list", { title: "Seven Hills" })).toEqual({ removed: "Seven Hills", watch_list_size: 3 });
    expect((await failure(first, "remove_from_watch_list", { title: "Atlas Run" })).code).toBe("not_found");
    first.close();
    const second = profiles.open({ databasePath: path });
    const titles = ((await call(second, "list_watch_list")).videos as { title: string }[]).map((video) => video.title);
    expect(titles).toEqual(["Orbit Nine", "Wild Iberia", "Red Line"]);
    await second.store.undo();
    expect(((await call(second, "list_watch_list")).videos as unknown[]).length).toBe(4);
  });
});

describe("photos app", () => {
  it("declares risk classes", () => {
    expect(risks(photosApp)).toEqual({
      search_photos: "read",
      list_photo_albums: "read",
      create_photo_album: "write",
      add_photos_to_album: "write",
      tag_photo: "write",
      share_photo: "send",
      share_photo_album: "send",
    });
  });

  it("searches by day, place, tag and person", async () => {
    const profile = profiles.open();
    const saturday = await call(profile, "search_photos", { date: "Saturday" });
    expect(saturday.date).toBe("2026-11-28");
    const yesterdayButOne = await call(profile, "search_photos", { date: "2026-11-29" });
    expect(yesterdayButOne.count).toBe(3);
    const sintra = await call(profile, "search_photos", { place: "Sintra" });
    expect(sintra.count).toBe(4);
    const beach = await call(profile, "search_photos", { tag: "beach" });
    expect((beach.photos as { tags: string[] }[]).every((photo) => photo.tags.includes("beach"))).toBe(true);
    const withJules = await call(profile, "search_photos", { person: "Jules", album: "Porto weekend" });
    expect(withJules.count).toBeGreaterThan(0);
    const none = await call(profile, "search_photos", { place: "Tokyo" });
    expect(none.count).toBe(0);
    expect(String(none.hint)).toContain("fewer filters");
    expect((await failure(profile, "search_photos", { date: "next Friday" })).code).toBe("date_in_future");
  });

  it("creates albums, adds and tags photos", async () => {
    const profile = profiles.open();
    expect(await call(profile, "create_photo_album", { name: "Best of 2026", photo_ids: ["photo-1", "photo-4"] })).toMatchObject({ photos: 2 });
    expect((await failure(profile, "create_photo_album", { name: "best of 2026" })).code).toBe("album_exists");
    expect(await call(profile, "add_photos_to_album", { album: "Best of 2026", photo_ids: ["photo-4", "photo-7"] })).toMatchObject({ added: ["photo-7"], photos: 3 });
    expect((await failure(profile, "add_photos_to_album", { album: "Best of 2026", photo_ids: ["photo-7"] })).code).toBe("already_in_album");
    expect((await failure(profile, "add_photos_to_album", { album: "Best of 2026", photo_ids: ["photo-999"] })).code).toBe("photo_not_found");
    expect(await call(profile, "tag_photo", { photo_id: "photo-1", tag: "Lunch" })).toMatchObject({ tags: ["food", "friends", "lunch"] });
    expect((await failure(profile, "tag_photo", { photo_id: "photo-1", tag: "lunch" })).code).toBe("already_tagged");
    const albums = await call(profile, "list_photo_albums");
    expect((albums.albums as { name: string }[]).map((album) => album.name)).toContain("Best of 2026");
  });

  it("shares a photo and an album with contacts, failing offline or for strangers", async () => {
    const profile = profiles.open();
    expect(await call(profile, "share_photo", { photo_id: "photo-1", contact: "Maria" })).toMatchObject({ with: "Maria Lopez", email: "maria.lopez@example.com" });
    expect(await call(profile, "share_photo_album", { album: "Family", contact: "mom" })).toMatchObject({ with: "Mom", photos: 10 });
    expect((await failure(profile, "share_photo", { photo_id: "photo-1", contact: "Bob Stranger" })).code).toBe("unknown_contact");
    await profile.store.action({ tool: "test_offline", args: {} }, (tx) => writeSettings(tx, { ...DEFAULT_SETTINGS, airplaneMode: true, wifi: false }));
    const offline = await failure(profile, "share_photo", { photo_id: "photo-1", contact: "Ana" });
    expect(offline.code).toBe("airplane_mode");
    expect(offline.message).toContain("set_airplane_mode(on=false)");
    await call(profile, "create_photo_album", { name: "Empty" });
    expect((await failure(profile, "share_photo_album", { album: "Empty", contact: "Ana" })).code).toBe("album_empty");
  });

  it("shares with a person added in the contacts app, and refuses one with no email", async () => {
    const profile = profiles.open({ apps: [photosApp, contactsApp] });
    const addContact = contactsApp.tools.find((candidate) => candidate.name === "add_contact")!;
    await profile.runTool(addContact, { name: "Rita Costa", email: "rita@example.com" });
    await profile.runTool(addContact, { name: "Zeca Phone", phone: "+351 912 345 678" });
    expect(await call(profile, "share_photo", { photo_id: "photo-2", contact: "Rita" })).toMatchObject({ with: "Rita Costa", email: "rita@example.com" });
    expect((await failure(profile, "share_photo", { photo_id: "photo-2", contact: "Zeca" })).code).toBe("contact_without_email");
  });

  it("keeps albums across a reopened database; undo removes a new album", async () => {
    const path = profiles.temporaryDatabase();
    const first = profiles.open({ databasePath: path });
    await call(first, "create_photo_album", { name: "Lisbon lights", photo_ids: ["photo-4"] });
    first.close();
    const second = profiles.open({ databasePath: path });
    expect((await call(second, "search_photos", { album: "Lisbon lights" })).count).toBe(1);
    await second.store.undo();
    expect((await failure(second, "search_photos", { album: "Lisbon lights" })).code).toBe("not_found");
  });
});

describe("recipes app", () => {
  it("declares risk classes and bundles about forty recipes", () => {
    expect(risks(recipesApp)).toEqual({
      search_recipes: "read",
      get_recipe: "read",
      scale_recipe: "read",
      add_recipe_to_shopping_list: "write",
    });
    expect(RECIPES.length).toBeGreaterThanOrEqual(40);
  });

  it("searches by ingredient, tag and time", async () => {
    const profile = profiles.open();
    const quickVegan = await call(profile, "search_recipes", { query: "vegan", max_minutes: 15 });
    expect((quickVegan.recipes as { name: string }[]).map((recipe) => recipe.name)).toEqual(expect.arrayContaining(["Gazpacho", "Guacamole", "Hummus"]));
    const cod = await call(profile, "search_recipes", { query: "salted cod" });
    expect((cod.recipes as { id: string }[])[0]?.id).toBe("bacalhau-a-bras");
    expect((await failure(profile, "search_recipes", { query: "unicorn" })).code).toBe("no_results");
  });

  it("gets and scales a recipe with quantities scaled", async () => {
    const profile = profiles.open();
    const recipe = await call(profile, "get_recipe", { recipe: "Tortilla Española" });
    expect(recipe).toMatchObject({ servings: 4 });
    expect(recipe.ingredients).toContain("6 eggs");
    const scaled = await call(profile, "scale_recipe", { recipe: "tortilla", servings: 2 });
    expect(scaled).toMatchObject({ original_servings: 4, servings: 2, factor: 0.5 });
    const ingredients = scaled.ingredients as { name: string; quantity: number; unit?: string }[];
    expect(ingredients.find((item) => item.name === "eggs")?.quantity).toBe(3);
    expect(ingredients.find((item) => item.name === "potatoes")).toMatchObject({ quantity: 300, unit: "g" });
    await expect(profile.runTool(tool("scale_recipe"), { recipe: "tortilla", servings: 0 })).rejects.toThrow();
    expect((await failure(profile, "get_recipe", { recipe: "Beef Wellington" })).code).toBe("not_found");
  });

  it("adds scaled ingredients to the shared shopping list, summing and skipping", async () => {
    const profile = profiles.open();
    const added = await call(profile, "add_recipe_to_shopping_list", { recipe: "Caldo Verde", servings: 2, skip: ["water", "olive oil"] });
    expect(added.added).toEqual(expect.arrayContaining(["potatoes 300 g", "garlic 1 clove", "kale 100 g"]));
    expect(added.added).not.toEqual(expect.arrayContaining([expect.stringContaining("water")]));
    await call(profile, "add_recipe_to_shopping_list", { recipe: "Caldo Verde", servings: 2, skip: ["water", "olive oil"] });
    const list = await call(profile, "view_shopping_list");
    const potatoes = (list.items as { item: string; quantity: number; unit?: string; for: string }[]).find((item) => item.item === "potatoes");
    expect(potatoes).toMatchObject({ quantity: 600, unit: "g", for: "Caldo Verde" });
    const wrongSkip = await failure(profile, "add_recipe_to_shopping_list", { recipe: "Caldo Verde", skip: ["chocolate"] });
    expect(wrongSkip.code).toBe("invalid_argument");
    expect(wrongSkip.message).toContain("kale");
    await profile.store.undo();
    const after = await call(profile, "view_shopping_list");
    expect((after.items as { item: string; quantity: number }[]).find((item) => item.item === "potatoes")?.quantity).toBe(300);
  });

  it("rounds counted ingredients up on the list, and the list persists", async () => {
    const path = profiles.temporaryDatabase();
    const first = profiles.open({ databasePath: path });
    await call(first, "add_recipe_to_shopping_list", { recipe: "Shakshuka", servings: 1 });
    first.close();
    const second = profiles.open({ databasePath: path });
    const items = (await call(second, "view_shopping_list")).items as { item: string; quantity: number }[];
    expect(items.find((item) => item.item === "eggs")?.quantity).toBe(2);
    expect(items.find((item) => item.item === "onion")?.quantity).toBe(1);
  });
});

describe("fitness app", () => {
  it("declares risk classes", () => {
    expect(risks(fitnessApp)).toEqual({
      log_workout: "write",
      list_workouts: "read",
      delete_workout: "destructive",
      log_steps: "write",
      set_fitness_goal: "write",
      get_fitness_progress: "read",
    });
  });

  it("logs a workout with a calorie estimate and counts it toward the week", async () => {
    const profile = profiles.open();
    const logged = await call(profile, "log_workout", { type: "Running", minutes: 30, distance_km: 5 });
    expect(logged).toMatchObject({ logged: { date: "2026-12-01", type: "running", calories: 343 }, this_week: { workouts: 2, active_minutes: 58 } });
    const yesterday = await call(profile, "log_workout", { type: "yoga", minutes: "45", date: "yesterday" });
    expect(yesterday).toMatchObject({ logged: { date: "2026-11-30" } });
    const listed = await call(profile, "list_workouts", { days: 2 });
    expect((listed.workouts as unknown[]).length).toBe(3);
  });

  it("refuses future dates, impossible speeds and distances that make no sense", async () => {
    const profile = profiles.open();
    expect((await failure(profile, "log_workout", { type: "running", minutes: 30, date: "tomorrow" })).code).toBe("date_in_future");
    expect((await failure(profile, "log_workout", { type: "running", minutes: 10, distance_km: 20 })).code).toBe("implausible_workout");
    expect((await failure(profile, "log_workout", { type: "yoga", minutes: 30, distance_km: 2 })).code).toBe("invalid_argument");
    await expect(profile.runTool(tool("log_workout"), { type: "sleeping", minutes: 30 })).rejects.toThrow();
  });

  it("adds steps to a day and reports the daily goal", async () => {
    const profile = profiles.open();
    expect(await call(profile, "log_steps", { steps: 7000 })).toMatchObject({ date: "2026-12-01", steps: 10780, daily_goal: 10000, goal_met: true });
    expect((await failure(profile, "log_steps", { steps: 95000 })).code).toBe("implausible_steps");
  });

  it("sets goals and shows progress", async () => {
    const profile = profiles.open();
    expect(await call(profile, "set_fitness_goal", { goal: "weekly distance km", target: 20 })).toMatchObject({ goal: "weekly_distance_km", target: 20, progress: { done: 4.6 } });
    expect((await failure(profile, "set_fitness_goal", { goal: "weekly_workouts", target: 90 })).code).toBe("invalid_argument");
    const progress = await call(profile, "get_fitness_progress");
    expect(progress).toMatchObject({ today: "2026-12-01", week_from: "2026-11-30", steps_today: 3780, workouts_this_week: 1 });
    expect((progress.goals as { goal: string }[]).map((goal) => goal.goal)).toContain("weekly_distance_km");
    expect((progress.steps_last_7_days as unknown[]).length).toBe(7);
  });

  it("deletes a workout; undo and a reopened database bring it back", async () => {
    const path = profiles.temporaryDatabase();
    const first = profiles.open({ databasePath: path });
    expect(await call(first, "delete_workout", { workout_id: "workout-8" })).toMatchObject({ deleted: { type: "running" } });
    expect((await failure(first, "delete_workout", { workout_id: "workout-8" })).code).toBe("workout_not_found");
    first.close();
    const second = profiles.open({ databasePath: path });
    expect((await call(second, "get_fitness_progress")).workouts_this_week).toBe(0);
    await second.store.undo();
    expect((await call(second, "get_fitness_progress")).workouts_this_week).toBe(1);
  });
});
