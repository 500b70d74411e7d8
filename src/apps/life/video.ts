import { z } from "zod";
import type { StoreTransaction } from "../../store/store.js";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { App } from "../app.js";
import { capped, findByName, looseEnum, matchesWords } from "../shared.js";

export const VIDEO_APP = "video";

export interface Video {
  id: string;
  title: string;
  kind: "movie" | "series" | "documentary";
  genre: string;
  year: number;
  minutes: number;
  rating: string;
}

interface WatchListEntry {
  videoId: string;
  addedAt: string;
}

interface VideoPlayer {
  state: "playing" | "paused" | "stopped";
  videoId: string | undefined;
  history: string[];
}

export const VIDEO_LIBRARY: readonly Video[] = (
  [
    ["v-harbour", "The Harbour Keeper", "movie", "drama", 2021, 118, "12"],
    ["v-red-line", "Red Line", "movie", "thriller", 2023, 104, "16"],
    ["v-seven-hills", "Seven Hills", "series", "comedy", 2022, 30, "12"],
    ["v-deep-blue", "Deep Blue Atlantic", "documentary", "nature", 2020, 52, "all"],
    ["v-orbit", "Orbit Nine", "movie", "science fiction", 2024, 131, "12"],
    ["v-kitchen", "Kitchen Stories Lisbon", "series", "food", 2019, 25, "all"],
    ["v-last-tram", "The Last Tram", "movie", "romance", 2018, 97, "12"],
    ["v-midnight", "Midnight Signal", "series", "mystery", 2023, 48, "16"],
    ["v-mountain", "Mountain Light", "documentary", "travel", 2022, 88, "all"],
    ["v-robots", "Robots of the Rio", "movie", "animation", 2021, 92, "all"],
    ["v-code", "Code Breakers", "documentary", "history", 2017, 74, "12"],
    ["v-atlas", "Atlas Run", "movie", "action", 2022, 126, "16"],
    ["v-quiet", "Quiet Streets", "movie", "drama", 2020, 109, "12"],
    ["v-laugh", "Stand-up Porto", "series", "comedy", 2024, 35, "16"],
    ["v-wild", "Wild Iberia", "documentary", "nature", 2023, 58, "all"],
    ["v-sky", "Sky Pirates", "movie", "adventure", 2019, 112, "all"],
    ["v-ledger", "The Ledger", "series", "crime", 2021, 55, "16"],
    ["v-tides", "Tides of Time", "movie", "science fiction", 2017, 121, "12"],
    ["v-bake", "Bake It Better", "series", "food", 2022, 42, "all"],
    ["v-lisbon", "Lisbon After Dark", "documentary", "travel", 2024, 61, "12"],
  ] as const
).map(([id, title, kind, genre, year, minutes, rating]) => ({ id, title, kind, genre, year, minutes, rating }));

const watchList = (tx: StoreTransaction) => tx.collection<WatchListEntry>(VIDEO_APP, "watchlist");
const playerRecord = (tx: StoreTransaction) => tx.collection<VideoPlayer>(VIDEO_APP, "player");

function readPlayer(tx: StoreTransaction): VideoPlayer {
  return playerRecord(tx).get("player") ?? { state: "stopped", videoId: undefined, history: [] };
}

function videoById(id: string): Video {
  const video = VIDEO_LIBRARY.find((candidate) => candidate.id === id);
  if (video === undefined) throw new ToolError("not_found", `Video ${id} is not in the library.`);
  return video;
}

function findVideo(query: string): Video {
  return findByName(VIDEO_LIBRARY, query, { what: "video", id: (video) => video.id, name: (video) => video.title, listTool: "search_videos" });
}

const videoResult = (video: Video) => ({ id: video.id, title: video.title, kind: video.kind, genre: video.genre, year: video.year, minutes: video.minutes });

const searchVideos = defineTool({
  name: "search_videos",
  description: "Search the video library (movies, series, documentaries) by title or genre.",
  input: z.object({
    query: z.string().optional().describe('Words to look for, e.g. "harbour" or "comedy"'),
    kind: looseEnum(["movie", "series", "documentary"] as const).optional().describe('"movie", "series" or "documentary"'),
  }),
  risk: "read",
  run: ({ query, kind }) => {
    const found = VIDEO_LIBRARY.filter(
      (video) => (query === undefined || matchesWords(`${video.title} ${video.genre} ${video.kind}`, query)) && (kind === undefined || video.kind === kind),
    );
    if (found.length === 0) throw new ToolError("no_results", `No videos match${query ? ` "${query}"` : ""}. Try a genre such as "drama" or "nature".`);
    const list = capped(found, 10);
    return { videos: list.items.map(videoResult), more: list.more };
  },
});

const playVideo = defineTool({
  name: "play_video",
  description: "Play a movie, series or documentary from the library.",
  input: z.object({ title: z.string().describe('Title, e.g. "Orbit Nine"') }),
  risk: "write",
  run: ({ title }, context) => {
    const video = findVideo(title);
    const player = readPlayer(context.store);
    playerRecord(context.store).put("player", { state: "playing", videoId: video.id, history: [video.id, ...player.history.filter((id) => id !== video.id)].slice(0, 20) });
    return { playing: videoResult(video) };
  },
});

const pauseVideo = defineTool({
  name: "pause_video",
  description: "Pause the video that is playing.",
  input: z.object({}),
  risk: "write",
  run: (_args, context) => {
    const player = readPlayer(context.store);
    if (player.state !== "playing" || player.videoId === undefined) throw new ToolError("not_playing", "No video is playing, so there is nothing to pause.");
    playerRecord(context.store).put("player", { ...player, state: "paused" });
    return { paused: videoById(player.videoId).title };
  },
});

const addToWatchList = defineTool({
  name: "add_to_watch_list",
  description: "Add a video to your watch list for later.",
  input: z.object({ title: z.string().describe('Title, e.g. "Red Line"') }),
  risk: "write",
  run: ({ title }, context) => {
    const video = findVideo(title);
    const list = watchList(context.store);
    if (list.get(video.id) !== undefined) throw new ToolError("already_in_watch_list", `"${video.title}" is already on your watch list. Nothing to do.`);
    if (list.all().length >= 100) throw new ToolError("watch_list_full", "The watch list holds at most 100 videos. Remove some with remove_from_watch_list.");
    list.put(video.id, { videoId: video.id, addedAt: context.now().toISOString() });
    return { added: video.title, watch_list_size: list.all().length };
  },
});

const removeFromWatchList = defineTool({
  name: "remove_from_watch_list",
  description: "Remove a video from your watch list.",
  input: z.object({ title: z.string().describe('Title, e.g. "Red Line"') }),
  risk: "write",
  run: ({ title }, context) => {
    const list = watchList(context.store);
    const entries = list.all().map((entry) => videoById(entry.videoId));
    if (entries.length === 0) throw new ToolError("watch_list_empty", "Your watch list is empty. Nothing to remove.");
    const video = findByName(entries, title, { what: "video on your watch list", id: (item) => item.id, name: (item) => item.title, listTool: "list_watch_list" });
    list.delete(video.id);
    return { removed: video.title, watch_list_size: entries.length - 1 };
  },
});

const listWatchList = defineTool({
  name: "list_watch_list",
  description: "Show your watch list.",
  input: z.object({}),
  risk: "read",
  run: (_args, context) => {
    const list = capped(watchList(context.store).all(), 20);
    return { videos: list.items.map((entry) => videoResult(videoById(entry.videoId))), more: list.more };
  },
});

export const videoApp: App = {
  name: VIDEO_APP,
  group: "life",
  title: "Video",
  description: "Movies, series and documentaries: play them and keep a watch list.",
  tools: [searchVideos, playVideo, pauseVideo, addToWatchList, removeFromWatchList, listWatchList],
  seed(tx, environment) {
    const at = environment.now().toISOString();
    for (const id of ["v-orbit", "v-seven-hills", "v-wild"]) watchList(tx).put(id, { videoId: id, addedAt: at });
    playerRecord(tx).put("player", { state: "stopped", videoId: undefined, history: ["v-deep-blue", "v-harbour"] });
  },
  view(tx) {
    const player = readPlayer(tx);
    const list = watchList(tx).all().map((entry) => videoById(entry.videoId));
    const text = [
      player.videoId === undefined ? "Nothing playing." : `${player.state === "playing" ? "Playing" : "Paused"}: ${videoById(player.videoId).title}`,
      "Watch list:",
      ...(list.length === 0 ? ["  empty"] : list.map((video) => `  - ${video.title} (${video.kind}, ${video.genre}, ${video.year})`)),
      `Recently watched: ${player.history.map((id) => videoById(id).title).join(", ") || "nothing"}`,
      `Library: ${VIDEO_LIBRARY.length} videos`,
    ].join("\n");
    return { text, data: { player, watchList: list.map(videoResult), librarySize: VIDEO_LIBRARY.length } };
  },
};
