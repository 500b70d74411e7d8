import { z } from "zod";
import type { StoreTransaction } from "../../store/store.js";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { App } from "../app.js";
import { haversineKm } from "./common.js";
import { capped, findByName, looseEnum, matchesWords } from "../shared.js";

export const MAPS_APP = "maps";

export interface Place {
  id: string;
  name: string;
  category: string;
  address: string;
  city: string;
  lat: number;
  lon: number;
}

/** A label of the user's own ("home", "gym") pointing at a place. */
export interface SavedPlace {
  label: string;
  placeId: string;
}

const place = (id: string, name: string, category: string, address: string, city: string, lat: number, lon: number): Place => ({
  id,
  name,
  category,
  address,
  city,
  lat,
  lon,
});

/** The bundled map: places in and around Lisbon, and the cities the travel app flies to. */
export const PLACES: readonly Place[] = [
  place("rua-das-flores-12", "Rua das Flores 12", "address", "Rua das Flores 12", "Lisbon", 38.71, -9.143),
  place("avenida-da-liberdade-110", "Avenida da Liberdade 110", "office", "Avenida da Liberdade 110", "Lisbon", 38.719, -9.144),
  place("lisbon-airport", "Lisbon Airport (LIS)", "airport", "Alameda das Comunidades Portuguesas", "Lisbon", 38.7742, -9.1342),
  place("belem-tower", "Belém Tower", "landmark", "Avenida Brasília", "Lisbon", 38.6916, -9.216),
  place("oceanario", "Oceanário de Lisboa", "museum", "Esplanada Dom Carlos I", "Lisbon", 38.7636, -9.0937),
  place("sao-jorge-castle", "São Jorge Castle", "landmark", "Rua de Santa Cruz do Castelo", "Lisbon", 38.7139, -9.1335),
  place("lx-factory", "LX Factory", "shopping", "Rua Rodrigues de Faria 103", "Lisbon", 38.7037, -9.1786),
  place("smile-dental", "Smile Dental Clinic", "dentist", "Avenida Almirante Reis 50", "Lisbon", 38.7255, -9.135),
  place("pingo-doce-chiado", "Pingo Doce Chiado", "supermarket", "Rua do Crucifixo 50", "Lisbon", 38.7107, -9.142),
  place("continente-colombo", "Continente Colombo", "supermarket", "Centro Colombo, Avenida Lusíada", "Lisbon", 38.7547, -9.1885),
  place("fitness-hub", "Fitness Hub Marquês", "gym", "Rua Braamcamp 12", "Lisbon", 38.723, -9.15),
  place("time-out-market", "Time Out Market", "restaurant", "Avenida 24 de Julho 49", "Lisbon", 38.7069, -9.1458),
  place("pasteis-de-belem", "Pastéis de Belém", "cafe", "Rua de Belém 84", "Lisbon", 38.6975, -9.2032),
  place("cafe-a-brasileira", "Café A Brasileira", "cafe", "Rua Garrett 120", "Lisbon", 38.7106, -9.1418),
  place("santa-apolonia", "Santa Apolónia Station", "train station", "Avenida Infante Dom Henrique", "Lisbon", 38.7136, -9.1226),
  place("oriente-station", "Oriente Station", "train station", "Avenida Dom João II", "Lisbon", 38.7678, -9.099),
  place("galp-avenida-india", "Galp Avenida da Índia", "fuel station", "Avenida da Índia 40", "Lisbon", 38.699, -9.19),
  place("hospital-santa-maria", "Hospital de Santa Maria", "hospital", "Avenida Professor Egas Moniz", "Lisbon", 38.7496, -9.1606),
  place("gulbenkian", "Calouste Gulbenkian Museum", "museum", "Avenida de Berna 45A", "Lisbon", 38.7373, -9.1545),
  place("estadio-da-luz", "Estádio da Luz", "stadium", "Avenida Eusébio da Silva Ferreira", "Lisbon", 38.7527, -9.1847),
  place("farmacia-estacio", "Farmácia Estácio", "pharmacy", "Rossio 62", "Lisbon", 38.7139, -9.1394),
  place("cascais", "Cascais", "town", "Cascais centre", "Cascais", 38.6979, -9.4215),
  place("sintra-pena-palace", "Pena Palace", "landmark", "Estrada da Pena", "Sintra", 38.7876, -9.3906),
  place("setubal", "Setúbal", "town", "Setúbal centre", "Setúbal", 38.5244, -8.8882),
  place("porto-ribeira", "Porto Ribeira", "landmark", "Cais da Ribeira", "Porto", 41.1407, -8.611),
  place("porto-airport", "Porto Airport (OPO)", "airport", "Maia", "Porto", 41.2421, -8.6786),
  place("faro", "Faro Old Town", "town", "Cidade Velha", "Faro", 37.0194, -7.9304),
  place("madrid-puerta-del-sol", "Puerta del Sol", "landmark", "Puerta del Sol", "Madrid", 40.4169, -3.7035),
  place("barcelona-sagrada-familia", "Sagrada Família", "landmark", "Carrer de Mallorca 401", "Barcelona", 41.4036, 2.1744),
  place("paris-eiffel-tower", "Eiffel Tower", "landmark", "Champ de Mars", "Paris", 48.8584, 2.2945),
  place("london-trafalgar-square", "Trafalgar Square", "landmark", "Trafalgar Square", "London", 51.508, -0.1281),
  place("amsterdam-dam-square", "Dam Square", "landmark", "Dam", "Amsterdam", 52.3731, 4.8926),
  place("berlin-brandenburg-gate", "Brandenburg Gate", "landmark", "Pariser Platz", "Berlin", 52.5163, 13.3777),
  place("rome-colosseum", "Colosseum", "landmark", "Piazza del Colosseo", "Rome", 41.8902, 12.4922),
];

/** A city name stands for its central place. */
const CITY_CENTRES: Record<string, string> = {
  lisbon: "sao-jorge-castle",
  lisboa: "sao-jorge-castle",
  porto: "porto-ribeira",
  oporto: "porto-ribeira",
  faro: "faro",
  cascais: "cascais",
  sintra: "sintra-pena-palace",
  setubal: "setubal",
  madrid: "madrid-puerta-del-sol",
  barcelona: "barcelona-sagrada-familia",
  paris: "paris-eiffel-tower",
  london: "london-trafalgar-square",
  amsterdam: "amsterdam-dam-square",
  berlin: "berlin-brandenburg-gate",
  rome: "rome-colosseum",
};

const DEFAULT_LABELS: Record<string, string> = { home: "rua-das-flores-12", work: "avenida-da-liberdade-110", office: "avenida-da-liberdade-110" };

export const TRAVEL_MODES = ["driving", "walking", "transit", "cycling"] as const;
export type TravelMode = (typeof TRAVEL_MODES)[number];

/** How each mode moves: road length over straight line, speed, fixed minutes (parking, waiting), longest sensible trip. */
const MODE_RULES: Record<TravelMode, { detour: number; cityKmh: number; longKmh: number; fixedMinutes: number; maxKm: number }> = {
  driving: { detour: 1.3, cityKmh: 26, longKmh: 88, fixedMinutes: 4, maxKm: 4000 },
  walking: { detour: 1.2, cityKmh: 4.8, longKmh: 4.8, fixedMinutes: 0, maxKm: 40 },
  transit: { detour: 1.35, cityKmh: 19, longKmh: 95, fixedMinutes: 8, maxKm: 700 },
  cycling: { detour: 1.25, cityKmh: 14, longKmh: 18, fixedMinutes: 0, maxKm: 150 },
};

const KM_PER_MILE = 1.609344;

function placeById(id: string): Place {
  const found = PLACES.find((candidate) => candidate.id === id);
  if (found === undefined) throw new ToolError("not_found", `No place with id "${id}". Find places with search_places.`);
  return found;
}

function savedPlaces(tx: StoreTransaction): SavedPlace[] {
  return tx.collection<SavedPlace>(MAPS_APP, "saved").all();
}

/** Resolve "home", a saved label, a city, a place name or id. */
export function resolvePlace(tx: StoreTransaction, query: string, field = "place"): Place {
  const wanted = query.trim().toLowerCase();
  if (wanted === "") throw new ToolError("invalid_argument", `${field} is empty. Name a place, e.g. "home", "Belém Tower" or "Porto".`);
  const saved = savedPlaces(tx).find((entry) => entry.label.toLowerCase() === wanted || `my ${entry.label.toLowerCase()}` === wanted);
  if (saved !== undefined) return placeById(saved.placeId);
  // The persona's home and office are known even before anything was saved.
  const builtIn = DEFAULT_LABELS[wanted.replace(/^my /, "")];
  if (builtIn !== undefined) return placeById(builtIn);
  const centre = CITY_CENTRES[wanted.normalize("NFD").replace(/[\u0300-\u036f]/g, "")];
  if (centre !== undefined) return placeById(centre);
  return findByName(PLACES, query, { what: "place", id: (item) => item.id, name: (item) => item.name, listTool: "search_places" });
}

export interface Route {
  from: string;
  to: string;
  mode: TravelMode;
  distanceKm: number;
  distanceMiles: number;
  minutes: number;
}

export function route(fromPlace: Place, toPlace: Place, mode: TravelMode): Route {
  const rule = MODE_RULES[mode];
  const straight = haversineKm(fromPlace, toPlace);
  const distanceKm = Math.round(straight * rule.detour * 10) / 10;
  if (distanceKm > rule.maxKm) {
    const alternative = mode === "transit" || distanceKm > MODE_RULES.driving.maxKm ? "fly (search_flights)" : "drive or take transit";
    throw new ToolError(
      "too_far",
      `${toPlace.name} is ${Math.round(distanceKm)} km from ${fromPlace.name}: too far for ${mode} (at most ${rule.maxKm} km). Choose another mode, or ${alternative}.`,
    );
  }
  // Short trips go at city speed, long ones at open-road speed past the first 15 km.
  const cityKm = Math.min(distanceKm, 15);
  const hours = cityKm / rule.cityKmh + Math.max(0, distanceKm - cityKm) / rule.longKmh;
  const minutes = distanceKm === 0 ? 0 : Math.round(hours * 60 + rule.fixedMinutes);
  return { from: fromPlace.name, to: toPlace.name, mode, distanceKm, distanceMiles: Math.round((distanceKm / KM_PER_MILE) * 10) / 10, minutes };
}

/** The driving distance between two places (the car app uses it). */
export function distanceBetween(tx: StoreTransaction, from: string, to: string): { to: string; drivingMiles: number } {
  const result = route(resolvePlace(tx, from, "from"), resolvePlace(tx, to, "destination"), "driving");
  return { to: result.to, drivingMiles: result.distanceMiles };
}

function describeDuration(minutes: number): string {
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

function routeResult(result: Route) {
  return {
    from: result.from,
    to: result.to,
    mode: result.mode,
    distance_km: result.distanceKm,
    distance_miles: result.distanceMiles,
    minutes: result.minutes,
    duration: describeDuration(result.minutes),
  };
}

const placeResult = (item: Place) => ({ id: item.id, name: item.name, category: item.category, address: item.address, city: item.city });

const searchPlaces = defineTool({
  name: "search_places",
  description: "Find places on the map by name or kind (cafe, supermarket, museum…), optionally in a city.",
  input: z.object({
    query: z.string().describe('What to look for, e.g. "supermarket" or "Belém"'),
    city: z.string().optional().describe('A city, e.g. "Lisbon"'),
  }),
  risk: "read",
  run: ({ query, city }, context) => {
    const found = PLACES.filter(
      (item) =>
        matchesWords(`${item.name} ${item.category} ${item.address} ${item.city}`, query) && (city === undefined || matchesWords(item.city, city)),
    );
    if (found.length === 0) {
      throw new ToolError("no_results", `No places match "${query}"${city ? ` in ${city}` : ""}. Try a kind of place such as "cafe", "museum" or "supermarket".`);
    }
    const saved = savedPlaces(context.store);
    const list = capped(found, 8);
    return {
      places: list.items.map((item) => ({ ...placeResult(item), saved_as: saved.find((entry) => entry.placeId === item.id)?.label })),
      more: list.more,
    };
  },
});

const getDirections = defineTool({
  name: "get_directions",
  description: "Directions from one place to another: distance and travel time by driving, walking, transit or cycling.",
  input: z.object({
    from: z.string().optional().describe('Start, e.g. "home" (default) or "Rossio"'),
    to: z.string().describe('Destination, e.g. "Belém Tower" or "work"'),
    mode: looseEnum(TRAVEL_MODES).optional().describe('"driving" (default), "walking", "transit" or "cycling"'),
  }),
  risk: "read",
  run: ({ from, to, mode }, context) => {
    const start = resolvePlace(context.store, from ?? "home", "from");
    const end = resolvePlace(context.store, to, "to");
    if (start.id === end.id) throw new ToolError("same_place", `from and to are both ${start.name}. Give two different places.`);
    const result = route(start, end, mode ?? "driving");
    return { ...routeResult(result), from_address: start.address, to_address: end.address };
  },
});

const compareTravelTimes = defineTool({
  name: "compare_travel_times",
  description: "Compare travel times between two places for every mode (driving, walking, transit, cycling).",
  input: z.object({
    from: z.string().optional().describe('Start, e.g. "home" (default)'),
    to: z.string().describe('Destination, e.g. "Lisbon Airport"'),
  }),
  risk: "read",
  run: ({ from, to }, context) => {
    const start = resolvePlace(context.store, from ?? "home", "from");
    const end = resolvePlace(context.store, to, "to");
    if (start.id === end.id) throw new ToolError("same_place", `from and to are both ${start.name}. Give two different places.`);
    const options = TRAVEL_MODES.map((mode) => {
      try {
        const result = route(start, end, mode);
        return { mode, minutes: result.minutes, duration: describeDuration(result.minutes), distance_km: result.distanceKm };
      } catch (error) {
        if (error instanceof ToolError) return { mode, unavailable: error.message };
        throw error;
      }
    });
    const fastest = options.filter((option) => "minutes" in option).sort((a, b) => (a.minutes ?? 0) - (b.minutes ?? 0))[0];
    return { from: start.name, to: end.name, options, fastest: fastest?.mode };
  },
});

const savePlace = defineTool({
  name: "save_place",
  description: 'Save a place under a label of your own, e.g. label "gym" for "Fitness Hub Marquês".',
  input: z.object({
    label: z.string().min(1).max(40).describe('Your name for it, e.g. "gym"'),
    place: z.string().describe('The place, e.g. "Fitness Hub Marquês"'),
  }),
  risk: "write",
  run: ({ label, place: query }, context) => {
    const cleanLabel = label.trim().toLowerCase();
    if (cleanLabel === "") throw new ToolError("invalid_argument", 'label is empty. Give a short name such as "gym".');
    const target = resolvePlace(context.store, query, "place");
    const saved = context.store.collection<SavedPlace>(MAPS_APP, "saved");
    const previous = saved.get(cleanLabel);
    saved.put(cleanLabel, { label: cleanLabel, placeId: target.id });
    return { saved: cleanLabel, place: target.name, address: target.address, replaced: previous ? placeById(previous.placeId).name : undefined };
  },
});

const listSavedPlaces = defineTool({
  name: "list_saved_places",
  description: "List the places you saved (home, work, gym…).",
  input: z.object({}),
  risk: "read",
  run: (_args, context) => ({
    places: savedPlaces(context.store).map((entry) => {
      const target = placeById(entry.placeId);
      return { label: entry.label, name: target.name, address: target.address };
    }),
  }),
});

export const mapsApp: App = {
  name: MAPS_APP,
  group: "errands",
  title: "Maps",
  description: "Places in and around Lisbon and beyond, directions and travel times.",
  tools: [searchPlaces, getDirections, compareTravelTimes, savePlace, listSavedPlaces],
  seed(tx) {
    const saved = tx.collection<SavedPlace>(MAPS_APP, "saved");
    for (const [label, placeId] of [
      ["home", "rua-das-flores-12"],
      ["work", "avenida-da-liberdade-110"],
      ["gym", "fitness-hub"],
      ["dentist", "smile-dental"],
    ] as const) {
      saved.put(label, { label, placeId });
    }
  },
  view(tx) {
    const saved = savedPlaces(tx).map((entry) => ({ label: entry.label, place: placeById(entry.placeId) }));
    const text = [
      `Saved places (${saved.length}):`,
      ...saved.map((entry) => `  ${entry.label.padEnd(10)} ${entry.place.name}, ${entry.place.address}, ${entry.place.city}`),
      `Map: ${PLACES.length} places in ${new Set(PLACES.map((item) => item.city)).size} cities.`,
    ].join("\n");
    return { text, data: { saved: saved.map((entry) => ({ label: entry.label, ...placeResult(entry.place) })), placeCount: PLACES.length } };
  },
};
