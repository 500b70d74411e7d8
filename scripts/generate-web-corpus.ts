/**
 * Generates the bundled offline data of the "finding things out" apps, the same
 * bytes on every run (a seeded random generator, no clock):
 *   data/web/corpus.jsonl.gz   a few thousand web pages over many topics
 *   data/news/feed.json        a few hundred news items (ages, not dates: the app dates them against the profile clock)
 *   data/weather/cities.json   climate normals of about a hundred cities (the app derives daily forecasts from them)
 *
 * Run: npx tsx scripts/generate-web-corpus.ts
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

// ---------------------------------------------------------------------------
// Deterministic randomness

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = mulberry32(20261201);

function pick<T>(items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

function pickSome<T>(items: readonly T[], count: number): T[] {
  const pool = [...items];
  const chosen: T[] = [];
  while (chosen.length < count && pool.length > 0) chosen.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  return chosen;
}

function between(low: number, high: number): number {
  return low + Math.floor(random() * (high - low + 1));
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Fill `{slot}` placeholders from `values`. */
function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`template slot {${key}} has no value in: ${template}`);
    return String(value);
  });
}

// ---------------------------------------------------------------------------
// Cities and their climate (monthly normals, °C; rain days per month)

interface City {
  name: string;
  country: string;
  lat: number;
  lon: number;
  janHigh: number;
  janLow: number;
  julHigh: number;
  julLow: number;
  rainDaysJan: number;
  rainDaysJul: number;
}

// name, country, lat, lon, Jan high, Jan low, Jul high, Jul low, rain days Jan, rain days Jul
const CITY_ROWS: [string, string, number, number, number, number, number, number, number, number][] = [
  ["Lisbon", "Portugal", 38.72, -9.14, 15, 8, 28, 18, 10, 1],
  ["Porto", "Portugal", 41.15, -8.61, 14, 5, 25, 15, 14, 3],
  ["Faro", "Portugal", 37.02, -7.93, 16, 8, 29, 19, 7, 0],
  ["Coimbra", "Portugal", 40.21, -8.43, 15, 5, 29, 15, 13, 2],
  ["Madrid", "Spain", 40.42, -3.7, 10, 3, 32, 19, 6, 2],
  ["Barcelona", "Spain", 41.39, 2.17, 14, 6, 28, 21, 5, 4],
  ["Seville", "Spain", 37.39, -5.98, 16, 6, 36, 20, 6, 0],
  ["Valencia", "Spain", 39.47, -0.38, 16, 7, 30, 21, 4, 1],
  ["Bilbao", "Spain", 43.26, -2.93, 13, 5, 25, 15, 14, 8],
  ["Paris", "France", 48.86, 2.35, 7, 3, 25, 15, 10, 8],
  ["Lyon", "France", 45.76, 4.84, 7, 0, 28, 16, 9, 7],
  ["Marseille", "France", 43.3, 5.37, 12, 4, 30, 20, 5, 2],
  ["Nice", "France", 43.7, 7.27, 13, 6, 28, 21, 6, 2],
  ["Bordeaux", "France", 44.84, -0.58, 10, 3, 27, 15, 12, 7],
  ["London", "United Kingdom", 51.51, -0.13, 8, 2, 24, 14, 11, 8],
  ["Manchester", "United Kingdom", 53.48, -2.24, 7, 2, 20, 12, 14, 11],
  ["Edinburgh", "United Kingdom", 55.95, -3.19, 7, 1, 19, 11, 13, 10],
  ["Dublin", "Ireland", 53.35, -6.26, 8, 3, 20, 12, 13, 10],
  ["Amsterdam", "Netherlands", 52.37, 4.9, 6, 1, 22, 13, 13, 10],
  ["Brussels", "Belgium", 50.85, 4.35, 6, 1, 23, 13, 13, 10],
  ["Berlin", "Germany", 52.52, 13.4, 3, -2, 24, 14, 10, 9],
  ["Munich", "Germany", 48.14, 11.58, 3, -4, 24, 13, 10, 12],
  ["Hamburg", "Germany", 53.55, 9.99, 4, -1, 22, 13, 12, 11],
  ["Frankfurt", "Germany", 50.11, 8.68, 4, -1, 25, 14, 10, 9],
  ["Cologne", "Germany", 50.94, 6.96, 5, 0, 24, 14, 11, 10],
  ["Zurich", "Switzerland", 47.38, 8.54, 3, -2, 24, 14, 10, 11],
  ["Geneva", "Switzerland", 46.2, 6.14, 5, -1, 27, 15, 9, 8],
  ["Vienna", "Austria", 48.21, 16.37, 3, -2, 26, 16, 7, 9],
  ["Prague", "Czechia", 50.08, 14.44, 1, -4, 24, 13, 7, 9],
  ["Budapest", "Hungary", 47.5, 19.04, 2, -3, 27, 16, 7, 7],
  ["Warsaw", "Poland", 52.23, 21.01, 0, -5, 24, 14, 9, 9],
  ["Krakow", "Poland", 50.06, 19.94, 1, -6, 24, 13, 8, 11],
  ["Copenhagen", "Denmark", 55.68, 12.57, 3, -1, 21, 13, 10, 9],
  ["Stockholm", "Sweden", 59.33, 18.07, 0, -5, 23, 13, 9, 8],
  ["Oslo", "Norway", 59.91, 10.75, -1, -7, 22, 13, 8, 10],
  ["Helsinki", "Finland", 60.17, 24.94, -2, -7, 22, 13, 10, 8],
  ["Reykjavik", "Iceland", 64.15, -21.94, 2, -3, 14, 9, 13, 10],
  ["Rome", "Italy", 41.9, 12.5, 12, 3, 31, 18, 7, 2],
  ["Milan", "Italy", 45.46, 9.19, 6, -1, 29, 18, 6, 5],
  ["Venice", "Italy", 45.44, 12.32, 6, 0, 28, 18, 6, 6],
  ["Florence", "Italy", 43.77, 11.26, 10, 1, 32, 17, 7, 3],
  ["Naples", "Italy", 40.85, 14.27, 13, 5, 30, 19, 9, 2],
  ["Athens", "Greece", 37.98, 23.73, 13, 7, 33, 23, 7, 1],
  ["Thessaloniki", "Greece", 40.64, 22.94, 9, 2, 31, 21, 6, 3],
  ["Istanbul", "Turkey", 41.01, 28.98, 9, 4, 28, 20, 12, 2],
  ["Dubrovnik", "Croatia", 42.65, 18.09, 12, 6, 29, 21, 10, 3],
  ["Split", "Croatia", 43.51, 16.44, 11, 5, 30, 22, 9, 3],
  ["Ljubljana", "Slovenia", 46.06, 14.51, 3, -4, 27, 15, 8, 10],
  ["Bucharest", "Romania", 44.43, 26.1, 2, -5, 29, 16, 6, 7],
  ["Sofia", "Bulgaria", 42.7, 23.32, 3, -4, 27, 14, 7, 8],
  ["Valletta", "Malta", 35.9, 14.51, 16, 10, 32, 23, 10, 0],
  ["Funchal", "Portugal", 32.65, -16.91, 19, 13, 25, 19, 7, 0],
  ["Ponta Delgada", "Portugal", 37.74, -25.67, 17, 12, 25, 18, 15, 5],
  ["Marrakesh", "Morocco", 31.63, -8.0, 19, 6, 37, 20, 4, 1],
  ["Casablanca", "Morocco", 33.57, -7.59, 17, 8, 26, 20, 7, 0],
  ["Cairo", "Egypt", 30.04, 31.24, 19, 9, 35, 22, 1, 0],
  ["Cape Town", "South Africa", -33.92, 18.42, 27, 16, 18, 8, 2, 10],
  ["Johannesburg", "South Africa", -26.2, 28.05, 26, 15, 17, 4, 14, 1],
  ["Nairobi", "Kenya", -1.29, 36.82, 25, 12, 22, 11, 5, 4],
  ["Lagos", "Nigeria", 6.52, 3.38, 32, 23, 28, 23, 2, 16],
  ["Accra", "Ghana", 5.6, -0.19, 32, 23, 28, 23, 1, 6],
  ["Dubai", "United Arab Emirates", 25.2, 55.27, 24, 14, 41, 30, 2, 0],
  ["Tel Aviv", "Israel", 32.09, 34.78, 18, 10, 31, 24, 11, 0],
  ["Mumbai", "India", 19.08, 72.88, 31, 19, 30, 26, 0, 23],
  ["Delhi", "India", 28.61, 77.21, 20, 7, 35, 27, 2, 12],
  ["Bangalore", "India", 12.97, 77.59, 28, 15, 28, 20, 0, 10],
  ["Bangkok", "Thailand", 13.76, 100.5, 32, 22, 33, 25, 1, 16],
  ["Singapore", "Singapore", 1.35, 103.82, 30, 23, 31, 25, 15, 13],
  ["Kuala Lumpur", "Malaysia", 3.14, 101.69, 32, 22, 32, 23, 12, 11],
  ["Hanoi", "Vietnam", 21.03, 105.85, 19, 14, 33, 26, 6, 15],
  ["Ho Chi Minh City", "Vietnam", 10.82, 106.63, 32, 21, 31, 24, 2, 23],
  ["Hong Kong", "China", 22.32, 114.17, 19, 14, 32, 27, 5, 17],
  ["Beijing", "China", 39.9, 116.41, 2, -8, 31, 22, 2, 13],
  ["Shanghai", "China", 31.23, 121.47, 8, 1, 32, 25, 9, 12],
  ["Seoul", "South Korea", 37.57, 126.98, 2, -6, 29, 22, 5, 16],
  ["Tokyo", "Japan", 35.68, 139.69, 10, 1, 30, 23, 5, 12],
  ["Osaka", "Japan", 34.69, 135.5, 9, 2, 32, 24, 6, 11],
  ["Kyoto", "Japan", 35.01, 135.77, 9, 1, 33, 23, 7, 12],
  ["Taipei", "Taiwan", 25.03, 121.57, 19, 13, 34, 26, 9, 12],
  ["Manila", "Philippines", 14.6, 120.98, 30, 22, 31, 25, 4, 21],
  ["Jakarta", "Indonesia", -6.21, 106.85, 30, 24, 32, 24, 19, 8],
  ["Sydney", "Australia", -33.87, 151.21, 26, 19, 17, 8, 12, 8],
  ["Melbourne", "Australia", -37.81, 144.96, 26, 14, 14, 6, 8, 12],
  ["Brisbane", "Australia", -27.47, 153.03, 30, 21, 22, 10, 12, 6],
  ["Perth", "Australia", -31.95, 115.86, 31, 18, 19, 8, 2, 15],
  ["Auckland", "New Zealand", -36.85, 174.76, 24, 16, 15, 8, 8, 16],
  ["New York", "United States", 40.71, -74.01, 4, -3, 29, 21, 11, 10],
  ["Boston", "United States", 42.36, -71.06, 2, -6, 28, 19, 11, 9],
  ["Washington", "United States", 38.91, -77.04, 6, -2, 31, 22, 10, 10],
  ["Chicago", "United States", 41.88, -87.63, -1, -9, 29, 20, 11, 10],
  ["Miami", "United States", 25.76, -80.19, 24, 16, 33, 25, 7, 16],
  ["Atlanta", "United States", 33.75, -84.39, 12, 2, 32, 22, 11, 12],
  ["Denver", "United States", 39.74, -104.99, 7, -8, 31, 15, 5, 9],
  ["Seattle", "United States", 47.61, -122.33, 8, 2, 26, 14, 18, 4],
  ["San Francisco", "United States", 37.77, -122.42, 14, 8, 22, 13, 11, 0],
  ["Los Angeles", "United States", 34.05, -118.24, 20, 9, 29, 18, 6, 0],
  ["Las Vegas", "United States", 36.17, -115.14, 14, 2, 40, 26, 3, 2],
  ["Austin", "United States", 30.27, -97.74, 17, 5, 35, 23, 8, 5],
  ["Toronto", "Canada", 43.65, -79.38, -1, -8, 27, 17, 12, 10],
  ["Montreal", "Canada", 45.5, -73.57, -5, -14, 26, 16, 13, 12],
  ["Vancouver", "Canada", 49.28, -123.12, 7, 1, 22, 14, 19, 5],
  ["Mexico City", "Mexico", 19.43, -99.13, 22, 6, 24, 12, 3, 20],
  ["Cancun", "Mexico", 21.16, -86.85, 28, 20, 33, 24, 7, 9],
  ["Havana", "Cuba", 23.11, -82.37, 26, 18, 32, 23, 6, 11],
  ["Bogota", "Colombia", 4.71, -74.07, 20, 7, 19, 8, 7, 14],
  ["Lima", "Peru", -12.05, -77.04, 26, 20, 19, 15, 0, 1],
  ["Santiago", "Chile", -33.45, -70.67, 30, 13, 15, 3, 0, 6],
  ["Buenos Aires", "Argentina", -34.6, -58.38, 30, 20, 15, 8, 9, 7],
  ["Rio de Janeiro", "Brazil", -22.91, -43.17, 30, 24, 25, 19, 12, 6],
  ["Sao Paulo", "Brazil", -23.55, -46.63, 28, 19, 22, 12, 16, 5],
];

const CITIES: City[] = CITY_ROWS.map(([name, country, lat, lon, janHigh, janLow, julHigh, julLow, rainDaysJan, rainDaysJul]) => ({
  name,
  country,
  lat,
  lon,
  janHigh,
  janLow,
  julHigh,
  julLow,
  rainDaysJan,
  rainDaysJul,
}));

// ---------------------------------------------------------------------------
// Web pages

interface Page {
  url: string;
  title: string;
  site: string;
  topic: string;
  published: string;
  text: string;
}

const pages: Page[] = [];
const seenUrls = new Set<string>();

function publishedDate(): string {
  const year = between(2019, 2026);
  const month = between(1, year === 2026 ? 10 : 12);
  return `${year}-${String(month).padStart(2, "0")}-${String(between(1, 28)).padStart(2, "0")}`;
}

function addPage(site: string, path: string, title: string, topic: string, paragraphs: string[]): void {
  let url = `https://${site}/${path}`;
  for (let suffix = 2; seenUrls.has(url); suffix++) url = `https://${site}/${path}-${suffix}`;
  seenUrls.add(url);
  pages.push({ url, title, site, topic, published: publishedDate(), text: paragraphs.join("\n\n") });
}

// Recipes ---------------------------------------------------------------------

const DISHES: { name: string; main: string[]; cuisine: string; minutes: number }[] = [
  { name: "pasta carbonara", main: ["spaghetti", "eggs", "pecorino", "guanciale", "black pepper"], cuisine: "Italian", minutes: 25 },
  { name: "mushroom risotto", main: ["arborio rice", "mushrooms", "onion", "white wine", "parmesan", "stock"], cuisine: "Italian", minutes: 40 },
  { name: "margherita pizza", main: ["flour", "yeast", "tomatoes", "mozzarella", "basil", "olive oil"], cuisine: "Italian", minutes: 90 },
  { name: "lasagne", main: ["lasagne sheets", "minced beef", "tomato passata", "bechamel", "parmesan"], cuisine: "Italian", minutes: 90 },
  { name: "pesto pasta", main: ["basil", "pine nuts", "garlic", "parmesan", "olive oil", "trofie"], cuisine: "Italian", minutes: 20 },
  { name: "minestrone soup", main: ["beans", "carrots", "celery", "courgette", "small pasta", "tomatoes"], cuisine: "Italian", minutes: 45 },
  { name: "bacalhau a bras", main: ["salt cod", "potatoes", "eggs", "onion", "black olives", "parsley"], cuisine: "Portuguese", minutes: 50 },
  { name: "caldo verde", main: ["kale", "potatoes", "chourico", "garlic", "olive oil"], cuisine: "Portuguese", minutes: 40 },
  { name: "pasteis de nata", main: ["puff pastry", "egg yolks", "milk", "sugar", "cinnamon", "lemon peel"], cuisine: "Portuguese", minutes: 75 },
  { name: "francesinha", main: ["bread", "steak", "ham", "linguica", "cheese", "beer sauce"], cuisine: "Portuguese", minutes: 60 },
  { name: "grilled sardines", main: ["sardines", "coarse salt", "lemon", "bread", "peppers"], cuisine: "Portuguese", minutes: 25 },
  { name: "arroz de marisco", main: ["rice", "prawns", "clams", "mussels", "tomato", "coriander"], cuisine: "Portuguese", minutes: 50 },
  { name: "paella valenciana", main: ["bomba rice", "chicken", "rabbit", "green beans", "saffron"], cuisine: "Spanish", minutes: 70 },
  { name: "tortilla espanola", main: ["potatoes", "eggs", "onion", "olive oil"], cuisine: "Spanish", minutes: 40 },
  { name: "gazpacho", main: ["tomatoes", "cucumber", "green pepper", "garlic", "sherry vinegar"], cuisine: "Spanish", minutes: 15 },
  { name: "chicken tikka masala", main: ["chicken thighs", "yoghurt", "garam masala", "tomatoes", "cream", "ginger"], cuisine: "Indian", minutes: 50 },
  { name: "chana masala", main: ["chickpeas", "onion", "tomatoes", "cumin", "coriander", "ginger"], cuisine: "Indian", minutes: 35 },
  { name: "dal tadka", main: ["yellow lentils", "turmeric", "garlic", "cumin seeds", "ghee"], cuisine: "Indian", minutes: 40 },
  { name: "vegetable biryani", main: ["basmati rice", "mixed vegetables", "saffron", "fried onions", "yoghurt"], cuisine: "Indian", minutes: 60 },
  { name: "pad thai", main: ["rice noodles", "prawns", "tofu", "tamarind", "peanuts", "bean sprouts"], cuisine: "Thai", minutes: 30 },
  { name: "green curry", main: ["chicken", "green curry paste", "coconut milk", "Thai basil", "aubergine"], cuisine: "Thai", minutes: 30 },
  { name: "tom yum soup", main: ["prawns", "lemongrass", "galangal", "lime leaves", "chillies", "mushrooms"], cuisine: "Thai", minutes: 25 },
  { name: "beef pho", main: ["rice noodles", "beef brisket", "star anise", "cinnamon", "fish sauce", "herbs"], cuisine: "Vietnamese", minutes: 180 },
  { name: "chicken ramen", main: ["ramen noodles", "chicken stock", "soy sauce", "soft eggs", "spring onions"], cuisine: "Japanese", minutes: 60 },
  { name: "teriyaki salmon", main: ["salmon", "soy sauce", "mirin", "ginger", "rice", "sesame"], cuisine: "Japanese", minutes: 25 },
  { name: "vegetable sushi rolls", main: ["sushi rice", "nori", "cucumber", "avocado", "rice vinegar"], cuisine: "Japanese", minutes: 50 },
  { name: "kung pao chicken", main: ["chicken", "peanuts", "dried chillies", "Sichuan pepper", "soy sauce"], cuisine: "Chinese", minutes: 30 },
  { name: "mapo tofu", main: ["tofu", "minced pork", "doubanjiang", "Sichuan pepper", "spring onions"], cuisine: "Chinese", minutes: 25 },
  { name: "egg fried rice", main: ["cooked rice", "eggs", "peas", "spring onions", "soy sauce"], cuisine: "Chinese", minutes: 15 },
  { name: "bibimbap", main: ["rice", "spinach", "carrots", "beef", "fried egg", "gochujang"], cuisine: "Korean", minutes: 45 },
  { name: "beef tacos", main: ["tortillas", "minced beef", "cumin", "lime", "salsa", "coriander"], cuisine: "Mexican", minutes: 30 },
  { name: "guacamole", main: ["avocados", "lime", "red onion", "coriander", "chilli"], cuisine: "Mexican", minutes: 10 },
  { name: "chilli con carne", main: ["minced beef", "kidney beans", "tomatoes", "chilli powder", "cumin"], cuisine: "Mexican", minutes: 75 },
  { name: "shakshuka", main: ["eggs", "tomatoes", "red peppers", "cumin", "paprika", "feta"], cuisine: "Middle Eastern", minutes: 30 },
  { name: "hummus", main: ["chickpeas", "tahini", "lemon", "garlic", "olive oil"], cuisine: "Middle Eastern", minutes: 15 },
  { name: "falafel", main: ["dried chickpeas", "parsley", "coriander", "garlic", "cumin"], cuisine: "Middle Eastern", minutes: 45 },
  { name: "greek salad", main: ["tomatoes", "cucumber", "feta", "olives", "red onion", "oregano"], cuisine: "Greek", minutes: 10 },
  { name: "moussaka", main: ["aubergines", "lamb mince", "tomatoes", "bechamel", "cinnamon"], cuisine: "Greek", minutes: 100 },
  { name: "beef stew", main: ["beef chuck", "carrots", "potatoes", "onion", "red wine", "thyme"], cuisine: "French", minutes: 150 },
  { name: "french onion soup", main: ["onions", "beef stock", "baguette", "gruyere", "butter"], cuisine: "French", minutes: 75 },
  { name: "ratatouille", main: ["aubergine", "courgette", "peppers", "tomatoes", "herbes de Provence"], cuisine: "French", minutes: 60 },
  { name: "crepes", main: ["flour", "milk", "eggs", "butter", "sugar"], cuisine: "French", minutes: 30 },
  { name: "banana bread", main: ["ripe bananas", "flour", "butter", "sugar", "eggs", "baking soda"], cuisine: "American", minutes: 70 },
  { name: "pancakes", main: ["flour", "milk", "eggs", "baking powder", "butter", "maple syrup"], cuisine: "American", minutes: 20 },
  { name: "chocolate chip cookies", main: ["flour", "butter", "brown sugar", "chocolate chips", "eggs", "vanilla"], cuisine: "American", minutes: 30 },
  { name: "mac and cheese", main: ["macaroni", "cheddar", "milk", "butter", "flour", "mustard"], cuisine: "American", minutes: 35 },
  { name: "roast chicken", main: ["whole chicken", "lemon", "garlic", "thyme", "potatoes"], cuisine: "British", minutes: 100 },
  { name: "shepherd's pie", main: ["lamb mince", "potatoes", "carrots", "peas", "onion"], cuisine: "British", minutes: 80 },
  { name: "apple crumble", main: ["apples", "flour", "butter", "oats", "brown sugar", "cinnamon"], cuisine: "British", minutes: 50 },
  { name: "lentil soup", main: ["red lentils", "carrots", "onion", "cumin", "lemon"], cuisine: "Turkish", minutes: 35 },
  { name: "overnight oats", main: ["oats", "milk", "yoghurt", "chia seeds", "berries"], cuisine: "breakfast", minutes: 5 },
  { name: "avocado toast", main: ["sourdough", "avocado", "lemon", "chilli flakes", "eggs"], cuisine: "breakfast", minutes: 10 },
  { name: "granola", main: ["oats", "honey", "nuts", "seeds", "dried fruit"], cuisine: "breakfast", minutes: 40 },
  { name: "carrot cake", main: ["carrots", "flour", "walnuts", "cinnamon", "cream cheese"], cuisine: "baking", minutes: 90 },
  { name: "sourdough bread", main: ["sourdough starter", "bread flour", "water", "salt"], cuisine: "baking", minutes: 1440 },
  { name: "lemon drizzle cake", main: ["flour", "butter", "sugar", "eggs", "lemons"], cuisine: "baking", minutes: 60 },
  { name: "quinoa salad", main: ["quinoa", "cucumber", "cherry tomatoes", "feta", "mint", "lemon"], cuisine: "healthy", minutes: 25 },
  { name: "buddha bowl", main: ["brown rice", "roasted sweet potato", "chickpeas", "kale", "tahini"], cuisine: "healthy", minutes: 40 },
  { name: "tomato soup", main: ["tomatoes", "onion", "garlic", "stock", "basil", "cream"], cuisine: "comfort food", minutes: 35 },
  { name: "fish and chips", main: ["white fish", "potatoes", "flour", "beer", "peas"], cuisine: "British", minutes: 45 },
];

const RECIPE_VARIANTS = ["classic", "easy", "vegetarian", "one-pot", "weeknight", "family-size", "quick", "budget"];

/** A plausible amount of an ingredient, scaled roughly to the servings. */
function quantityFor(ingredient: string, servings: number): string {
  const scale = servings / 4;
  if (/pepper|salt|cumin|cinnamon|paprika|turmeric|masala|oregano|herbes|chilli powder|seeds|saffron|baking|yeast|vanilla|star anise|thyme/.test(ingredient)) {
    return pick(["1 tsp", "2 tsp", "a pinch of"]);
  }
  if (/oil|wine|stock|milk|sauce|cream|vinegar|water|syrup|mirin|passata|beer|yoghurt|honey|tahini|lemon$|lime$/.test(ingredient)) {
    return pick([`${Math.round(150 * scale)} ml`, "2 tbsp", "3 tbsp"]);
  }
  if (/eggs|yolks/.test(ingredient)) return `${Math.max(2, Math.round(3 * scale))}`;
  if (/basil|parsley|coriander|mint|leaves|spring onions|herbs/.test(ingredient)) return "a handful of";
  return `${Math.round((pick([100, 200, 250, 400, 500]) * scale) / 50) * 50 || 50} g`;
}
const RECIPE_SITES = ["www.simmerandsage.example", "www.pantrynotes.example", "cooking.dailyplate.example", "www.kitchencompass.example"];

function recipePages(): void {
  for (const dish of DISHES) {
    for (const variant of pickSome(RECIPE_VARIANTS, 6)) {
      const servings = pick([2, 4, 4, 6, 8]);
      const minutes = Math.max(5, Math.round(dish.minutes * (variant === "easy" || variant === "weeknight" ? 0.8 : 1)));
      const title = `${capitalise(variant)} ${dish.name} recipe`;
      const site = pick(RECIPE_SITES);
      const ingredients = dish.main.map((ingredient) => `${quantityFor(ingredient, servings)} ${ingredient}`);
      const steps = [
        `Prepare everything first: ${dish.main.slice(0, 3).join(", ")} ready before the heat goes on.`,
        pick([
          `Heat a little oil in a wide pan over medium heat and start with the aromatics.`,
          `Preheat the oven to ${pick([180, 190, 200, 220])} °C and line a tray.`,
          `Bring a large pot of salted water to the boil.`,
        ]),
        `Add the ${dish.main[dish.main.length - 1]} near the end and taste for seasoning.`,
        pick([`Rest for five minutes before serving.`, `Serve at once, while hot.`, `Serve with a green salad and crusty bread.`]),
      ];
      addPage(site, `recipes/${slug(`${variant} ${dish.name}`)}`, title, "recipes", [
        `${title}. ${/^[AEIOU]/.test(dish.cuisine) ? "An" : "A"} ${dish.cuisine} favourite that serves ${servings} and takes about ${minutes} minutes from start to finish. ${pick([
          "It is a dish we come back to every week.",
          "Readers rate it one of the most reliable recipes on the site.",
          "Good for a quiet dinner or a crowd.",
          "It keeps well in the fridge for two days.",
        ])}`,
        `Ingredients (${servings} servings): ${ingredients.join("; ")}.`,
        `Method: ${steps.map((step, index) => `${index + 1}. ${step}`).join(" ")}`,
        variant === "vegetarian"
          ? `To keep it vegetarian, swap any meat or fish for ${pick(["smoked tofu", "roasted mushrooms", "chickpeas", "grilled halloumi"])} and use vegetable stock.`
          : `Tip: ${pick([
              "Season in layers rather than all at the end.",
              "A squeeze of lemon just before serving lifts the flavours.",
              "Use the best olive oil you have for finishing, not for frying.",
              "Leftovers freeze well for up to three months.",
            ])} Nutrition per serving: about ${between(250, 750)} kcal.`,
      ]);
    }
  }
}

// Travel -----------------------------------------------------------------------

const TRAVEL_SITES = ["www.wanderledger.example", "travel.lightpack.example", "www.citybreaks.example", "www.slowroutes.example"];
const SIGHTS = ["the old town", "the cathedral", "the riverside promenade", "the central market", "the modern art museum", "the botanical garden", "the castle hill", "the harbour", "the main square", "the city viewpoint"];
const FOODS = ["street food stalls", "seafood restaurants", "family-run taverns", "bakeries", "night markets", "wine bars", "vegetarian cafes", "rooftop bars"];

function monthName(index: number): string {
  return ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"][index]!;
}

function travelPages(): void {
  for (const city of CITIES) {
    const warmest = city.lat >= 0 ? "July" : "January";
    const coolest = city.lat >= 0 ? "January" : "July";
    const warmHigh = Math.max(city.janHigh, city.julHigh);
    const coolHigh = Math.min(city.janHigh, city.julHigh);
    const kinds: [string, string, string[]][] = [
      [
        `3 days in ${city.name}: a first-timer's itinerary`,
        `three-days-in-${slug(city.name)}`,
        [
          `Three days is enough to get a feel for ${city.name}, ${city.country}. Day one: walk ${pick(SIGHTS)} and ${pick(SIGHTS)}, then dinner at one of the ${pick(FOODS)}.`,
          `Day two: start early at ${pick(SIGHTS)} before the crowds, and spend the afternoon at ${pick(SIGHTS)}. Day three: a slower morning, then ${pick(["a boat trip", "a food tour", "a bike ride", "a day at the beach", "a hike to a viewpoint"])}.`,
          `Getting around: ${pick(["the metro is fast and cheap", "most sights are walkable", "buy a 72-hour transport pass", "trams and buses cover the centre"])}. Budget about ${between(60, 220)} EUR a day for a mid-range trip.`,
        ],
      ],
      [
        `Best time to visit ${city.name}`,
        `best-time-to-visit-${slug(city.name)}`,
        [
          `${city.name} is warmest in ${warmest}, with average highs around ${warmHigh} °C, and coolest in ${coolest}, when highs are near ${coolHigh} °C.`,
          `Rain: expect about ${city.rainDaysJan} rainy days in January and ${city.rainDaysJul} in July. ${Math.max(city.rainDaysJan, city.rainDaysJul) > 12 ? "Pack a light rain jacket." : "Rain is rarely a problem for sightseeing."}`,
          `Our pick: ${monthName(city.lat >= 0 ? pick([4, 5, 8, 9]) : pick([2, 3, 9, 10]))}, for mild weather and fewer crowds.`,
        ],
      ],
      [
        `Where to eat in ${city.name}: ${between(8, 15)} places locals love`,
        `where-to-eat-${slug(city.name)}`,
        [
          `${city.name}'s food scene runs from ${pick(FOODS)} to ${pick(FOODS)}. Prices are ${pick(["reasonable", "high in the centre", "lower a few streets from the main square", "good value at lunch"])}.`,
          `Try the local speciality at a place near ${pick(SIGHTS)}; book ahead on weekends. For coffee, the cafes around ${pick(SIGHTS)} open early.`,
          `Tipping: ${pick(["round up the bill", "10% is appreciated", "service is usually included", "not expected"])}.`,
        ],
      ],
      [
        `Getting around ${city.name}: transport guide`,
        `getting-around-${slug(city.name)}`,
        [
          `From the airport to the centre of ${city.name} takes ${between(20, 60)} minutes by ${pick(["train", "metro", "express bus", "taxi"])}. A single ticket costs about ${between(2, 12)} EUR.`,
          `In town, ${pick(["a contactless bank card works on every bus and train", "buy a rechargeable travel card at any station", "ride-hailing apps are widely used", "bike lanes make cycling easy"])}. Night services run ${pick(["until 1 am", "all night on weekends", "on a reduced timetable"])}.`,
        ],
      ],
      [
        `Where to stay in ${city.name}: neighbourhoods compared`,
        `where-to-stay-${slug(city.name)}`,
        [
          `Choosing where to stay in ${city.name} depends on your plans. Near ${pick(SIGHTS)} you are close to everything but pay more; ${pick(["quieter", "greener", "livelier", "cheaper"])} areas are ${between(10, 25)} minutes away by public transport.`,
          `Expect about ${between(60, 160)} EUR a night for a mid-range double room, more in ${warmest === "July" ? "summer" : "December and January"}. ${pick(["Book early for festival weeks.", "Apartments suit families.", "Check the cancellation policy."])}`,
        ],
      ],
      [
        `${city.name} on a budget: ${between(10, 25)} free things to do`,
        `${slug(city.name)}-on-a-budget`,
        [
          `${city.name} does not have to be expensive. ${capitalise(pick(SIGHTS))} and ${pick(SIGHTS)} cost nothing to visit, and many museums are free on ${pick(["Sunday mornings", "the first Sunday of the month", "weekday evenings"])}.`,
          `Eat where the locals do: lunch menus near ${pick(SIGHTS)} cost about ${between(8, 18)} EUR. Tap water is ${pick(["safe to drink", "fine in most places, but check locally"])}.`,
        ],
      ],
      [
        `Day trips from ${city.name}`,
        `day-trips-from-${slug(city.name)}`,
        [
          `If you have an extra day in ${city.name}, ${pick(["a coastal town", "a wine region", "a mountain village", "a national park", "a historic castle"])} is about ${between(1, 3)} hours away by ${pick(["train", "car", "bus", "ferry"])}.`,
          `Leave early, carry water, and check return times: the last connection back is often ${pick(["before 8 pm", "around 9 pm", "earlier on Sundays"])}.`,
        ],
      ],
    ];
    for (const [title, path, paragraphs] of kinds) addPage(pick(TRAVEL_SITES), `guides/${path}`, title, "travel", paragraphs);
  }
}

// Technology how-tos -----------------------------------------------------------

const TECH_TASKS: [string, string[]][] = [
  ["reset your Wi-Fi router", ["Unplug the router for 30 seconds.", "Hold the reset button for 10 seconds to restore factory settings.", "Log in to the admin page and set a new network name and password."]],
  ["speed up a slow laptop", ["Close programs that start at login.", "Free up disk space: at least 15% should stay empty.", "Check for updates and restart."]],
  ["free up storage on your phone", ["Open storage settings to see what uses the most space.", "Delete old videos and offload unused apps.", "Clear the cache of messaging apps."]],
  ["set up two-factor authentication", ["Install an authenticator app.", "In the account's security settings, choose two-step verification.", "Save the backup codes somewhere safe."]],
  ["back up your photos", ["Pick a cloud service or an external drive.", "Turn on automatic backup.", "Check once a month that new photos arrive."]],
  ["take a screenshot", ["On most phones, press the power and volume-down buttons together.", "On a computer, use the Print Screen key or the snipping tool.", "Find the image in your screenshots folder."]],
  ["connect Bluetooth headphones", ["Put the headphones in pairing mode.", "Open Bluetooth settings and turn Bluetooth on.", "Choose the headphones from the list."]],
  ["change your default browser", ["Open system settings.", "Go to default apps.", "Choose the browser you want."]],
  ["find your Wi-Fi password", ["Open network settings on a device that is connected.", "Select the network and show its details.", "Or read it from the sticker on the router."]],
  ["update your phone", ["Connect to Wi-Fi and plug in the charger.", "Open settings, then software update.", "Download and install; the phone restarts."]],
  ["create a strong password", ["Use at least 14 characters.", "Combine unrelated words into a passphrase.", "Keep it in a password manager."]],
  ["recover a deleted file", ["Look in the recycle bin or trash first.", "Check your cloud backup's version history.", "Stop writing to the drive until the file is recovered."]],
  ["set up a new email account", ["Choose a provider and create the account.", "Add it to your mail app with the address and password.", "Set up a signature and filters."]],
  ["share your screen in a video call", ["Start or join the call.", "Press the share button.", "Pick a window rather than the whole screen to keep notifications private."]],
  ["turn on dark mode", ["Open display settings.", "Choose dark appearance.", "Optionally schedule it from sunset to sunrise."]],
  ["stop apps tracking your location", ["Open privacy settings.", "Review location permissions app by app.", "Allow only while using the app."]],
  ["fix a printer that will not print", ["Check paper, ink and that the printer is online.", "Clear the print queue.", "Remove and add the printer again."]],
  ["extend your phone's battery life", ["Lower screen brightness.", "Turn on battery saver below 20%.", "Turn off background refresh for apps you rarely use."]],
  ["transfer data to a new phone", ["Back up the old phone.", "Keep both phones near each other during setup.", "Follow the transfer assistant."]],
  ["block spam calls", ["Turn on the built-in spam filter in the phone app.", "Block numbers from the recent calls list.", "Register with your country's do-not-call list."]],
  ["set up parental controls", ["Create a child account.", "Set screen time limits.", "Approve app downloads."]],
  ["use a VPN", ["Pick a trusted provider.", "Install its app and sign in.", "Connect to a server near you for speed."]],
  ["clear your browser cache", ["Open the browser's settings.", "Go to privacy and clear browsing data.", "Select cached images and files only."]],
  ["mirror your phone to a TV", ["Connect both to the same Wi-Fi.", "Open screen mirroring or cast.", "Choose the TV."]],
  ["scan a document with your phone", ["Open the notes or files app.", "Choose scan document.", "Save it as a PDF."]],
  ["set up a smart speaker", ["Plug it in and install its app.", "Connect it to Wi-Fi.", "Link your music service."]],
  ["write a spreadsheet formula", ["Start with an equals sign.", "Use SUM or AVERAGE over a range like A1:A10.", "Drag the fill handle to copy it down."]],
  ["learn to code in Python", ["Install Python from the official site.", "Work through a beginner tutorial.", "Build one small project you care about."]],
  ["check if your password was leaked", ["Use a breach-checking service.", "Change any reused password.", "Turn on two-factor authentication."]],
  ["make a video call on a TV", ["Use a streaming stick with a camera.", "Install the calling app.", "Sign in and call."]],
  ["sync your calendar across devices", ["Use the same account on every device.", "Turn on calendar sync in account settings.", "Check the default calendar for new events."]],
  ["install a mesh Wi-Fi system", ["Place the main unit by the modem.", "Put satellites halfway to dead zones.", "Run the app's signal test."]],
];
const PLATFORMS = ["Windows", "macOS", "Android", "iPhone", "Linux", "Chromebook"];
const TECH_SITES = ["www.howtogeekly.example", "help.plainsteps.example", "www.techfixit.example", "support.gadgetguide.example"];

function techPages(): void {
  for (const [task, steps] of TECH_TASKS) {
    for (const platform of pickSome(PLATFORMS, 6)) {
      const title = `How to ${task} on ${platform}`;
      addPage(pick(TECH_SITES), `how-to/${slug(`${task} ${platform}`)}`, title, "technology", [
        `${title}: a step-by-step guide, updated for the latest version of ${platform}. It takes about ${between(2, 20)} minutes.`,
        `Steps: ${steps.map((step, index) => `${index + 1}. ${step}`).join(" ")}`,
        `If it does not work: ${pick([
          "restart the device and try again.",
          "check that you are signed in with the right account.",
          "make sure the software is up to date.",
          "ask your provider's support line.",
        ])} ${pick(["Screenshots are included below.", "Comments are open for questions.", "This guide was tested on two devices."])}`,
      ]);
    }
  }
}

// Health ----------------------------------------------------------------------

const HEALTH_TOPICS: [string, string][] = [
  ["sleep better", "Most adults need seven to nine hours of sleep. Keep a regular schedule and a dark, cool bedroom."],
  ["stay hydrated", "Thirst is a reliable guide for most healthy adults; drink more in heat and during exercise."],
  ["ease lower back pain", "Gentle movement usually helps more than bed rest; see a doctor if pain follows a fall or comes with numbness."],
  ["reduce stress", "Regular exercise, breathing exercises and time outdoors lower stress for many people."],
  ["start running", "Begin with run-walk intervals three times a week and increase total time by about ten percent a week."],
  ["eat more vegetables", "Fill half the plate with vegetables and keep frozen vegetables for busy days."],
  ["recognise the flu", "Flu often starts suddenly with fever, aches and tiredness; rest, fluids and a doctor's advice for people at risk."],
  ["treat a common cold", "Colds get better on their own in about a week; rest and fluids help with the symptoms."],
  ["protect your skin from the sun", "Use sunscreen of SPF 30 or more, reapply every two hours and seek shade at midday."],
  ["lower blood pressure", "Less salt, regular exercise and limiting alcohol help; follow your doctor's advice on medication."],
  ["improve posture at a desk", "Set the screen at eye level, keep feet flat and stand up every half hour."],
  ["build a stretching routine", "Stretch after a warm-up, hold each stretch 20 to 30 seconds and never bounce."],
  ["manage seasonal allergies", "Check pollen counts, keep windows closed on high days and ask a pharmacist about antihistamines."],
  ["eat less sugar", "Read labels, swap sweet drinks for water and keep fruit within reach."],
  ["care for your teeth", "Brush twice a day with fluoride toothpaste, floss daily and see a dentist regularly."],
  ["get more vitamin D", "Short periods of sunlight help; in winter many health services suggest a supplement."],
  ["prevent headaches", "Regular meals, enough water and sleep, and less screen glare prevent many tension headaches."],
  ["start strength training", "Two sessions a week working the major muscle groups is a good start; learn form with light weights."],
  ["meditate for beginners", "Start with five minutes a day focusing on the breath; consistency matters more than length."],
  ["cut down on caffeine", "Reduce slowly to avoid headaches and avoid caffeine in the six hours before bed."],
  ["walk 10,000 steps", "Short walks after meals and taking the stairs add up; any increase in steps helps."],
  ["eat a balanced breakfast", "Combine protein, fibre and some fruit to stay full until lunch."],
  ["look after your eyes", "Follow the 20-20-20 rule: every 20 minutes, look 20 feet away for 20 seconds."],
  ["recover after a workout", "Cool down, drink water, eat protein and carbohydrates and sleep well."],
  ["handle a sprained ankle", "Rest, ice, compression and elevation in the first days; see a doctor if you cannot bear weight."],
  ["keep your heart healthy", "Do not smoke, move every day, eat plenty of plants and know your numbers."],
  ["boost your immune system", "Sleep, a varied diet, exercise and vaccinations support the immune system."],
  ["eat well on a budget", "Plan meals, buy seasonal produce and cook beans and lentils in batches."],
  ["deal with jet lag", "Shift your schedule before travelling, get daylight at the destination and keep naps short."],
  ["quit smoking", "Set a date, tell friends, and ask about nicotine replacement; quitting lines double success rates."],
];
const HEALTH_ANGLES = [
  "How to {topic}: what the evidence says",
  "{Topic}: 7 practical tips",
  "A doctor's guide: how to {topic}",
  "Common myths about how to {topic}",
  "Want to {topic}? Start here",
  "How to {topic} when you are busy",
];
const HEALTH_SITES = ["www.wellnesscheck.example", "health.plainfacts.example", "www.dailyvitals.example"];

function healthPages(): void {
  for (const [topic, fact] of HEALTH_TOPICS) {
    for (const angle of HEALTH_ANGLES) {
      const title = fill(angle, { topic, Topic: capitalise(topic) });
      addPage(pick(HEALTH_SITES), `articles/${slug(title)}`, title, "health", [
        `${fact}`,
        `${pick(["Small changes add up:", "Start simple:", "What works for most people:"])} ${pick([
          "pick one habit and keep it for two weeks before adding another.",
          "track what you do for a week to see where to start.",
          "make the healthy choice the easy one at home.",
        ])}`,
        `This article is general information, not medical advice. ${pick([
          "Talk to your doctor if symptoms persist.",
          "Seek urgent care for severe or sudden symptoms.",
          "Your pharmacist can help with over-the-counter options.",
        ])}`,
      ]);
    }
  }
}

// Sports ----------------------------------------------------------------------

const TEAMS = [
  "Lisbon Harbour FC", "Porto Rivers", "Madrid Comets", "Barcelona Tides", "Paris Lanterns", "London Foxes", "Berlin Steel",
  "Milan Falcons", "Amsterdam Windmills", "Dublin Harps", "Vienna Waltz FC", "Athens Owls", "Seville Suns", "Lyon Lions",
];
const SPORT_GUIDES: [string, string][] = [
  ["padel", "Padel is played in doubles on an enclosed court; the walls are in play after the ball bounces."],
  ["tennis", "A tennis match is played in sets; a set is won by the first player to six games with a two-game lead."],
  ["cycling", "Start with short rides, check tyre pressure before every ride and always wear a helmet."],
  ["swimming", "Work on breathing and body position before speed; two or three sessions a week build endurance."],
  ["surfing", "Beginners learn on a soft-top board in small waves, ideally with a lesson."],
  ["yoga", "Beginner classes focus on breathing and simple poses; bring a mat and water."],
  ["basketball", "Basketball is five players a side; a shot from beyond the arc scores three points."],
  ["rugby", "In rugby union a try is worth five points and the conversion two."],
  ["golf", "Golf courses usually have 18 holes; the player with the fewest strokes wins."],
  ["climbing", "Indoor bouldering needs only shoes and chalk; learn to fall safely first."],
  ["hiking", "Check the forecast, tell someone your route and carry water, food and a map."],
  ["marathon training", "Most plans last 16 to 20 weeks with one long run a week, building to about 32 km."],
];
const SPORT_SITES = ["www.matchdaywire.example", "sport.finalwhistle.example", "www.activeplay.example"];

function sportsPages(): void {
  for (let index = 0; index < 300; index++) {
    const [home, away] = pickSome(TEAMS, 2) as [string, string];
    const homeGoals = between(0, 4);
    const awayGoals = between(0, 3);
    const result = homeGoals > awayGoals ? `${home} beat ${away}` : homeGoals < awayGoals ? `${away} win at ${home}` : `${home} and ${away} draw`;
    const title = `${result} ${homeGoals}-${awayGoals}`;
    addPage(pick(SPORT_SITES), `football/report-${slug(`${home} ${away}`)}-${index}`, title, "sports", [
      `Match report: ${home} ${homeGoals}, ${away} ${awayGoals}. ${pick([
        "A tense first half ended goalless.",
        "An early goal set the tone.",
        "Both sides created chances in a lively opening.",
        "Heavy rain made for a scrappy game.",
      ])}`,
      `${pick(["The winger", "The captain", "A substitute", "The striker", "The young midfielder"])} ${pick([
        "scored after the break",
        "hit the post twice",
        "was named player of the match",
        "set up the decisive goal",
      ])}. Attendance: ${between(8, 60)},${String(between(0, 999)).padStart(3, "0")}.`,
      `Next: ${home} travel to ${pick(TEAMS)} on ${pick(["Saturday", "Sunday", "Wednesday"])}.`,
    ]);
  }
  for (const [sport, fact] of SPORT_GUIDES) {
    for (const angle of ["A beginner's guide to {sport}", "{Sport}: rules explained", "What you need to start {sport}"]) {
      const title = fill(angle, { sport, Sport: capitalise(sport) });
      addPage(pick(SPORT_SITES), `guides/${slug(title)}`, title, "sports", [
        fact,
        `Where to start: ${pick(["join a local club", "book a taster session", "find a beginners' group online", "borrow gear before buying"])}. ${pick([
          "Most people see progress within a month.",
          "Warm up properly to avoid injury.",
          "Set one goal for the season.",
        ])}`,
      ]);
    }
  }
}

// Local businesses ---------------------------------------------------------------

const BUSINESS_TYPES: [string, string[], string][] = [
  ["bakery", ["Padaria", "Forno", "Bakehouse", "Crumb"], "fresh bread from 7 am, pastries and coffee"],
  ["dentist", ["Dental Clinic", "Smile Studio", "Dental Care"], "check-ups, cleaning, fillings and emergency appointments"],
  ["bike repair shop", ["Bike Works", "Cycle Doctor", "Spoke & Chain"], "repairs while you wait, rentals and second-hand bikes"],
  ["yoga studio", ["Yoga Shala", "Breathe Studio", "Lotus Room"], "classes for all levels, first class free"],
  ["hairdresser", ["Hair Studio", "Cut & Colour", "Barbearia"], "cuts, colour and beard trims by appointment"],
  ["pharmacy", ["Farmacia", "Pharmacy", "Health Point"], "prescriptions, advice and a night rota"],
  ["vet clinic", ["Vet Clinic", "Animal Care", "Pet Hospital"], "consultations, vaccinations and 24-hour emergencies"],
  ["restaurant", ["Tasca", "Bistro", "Kitchen", "Cantina"], "seasonal lunch menu and dinner from 7 pm"],
  ["coffee shop", ["Coffee Roasters", "Cafe", "Espresso Bar"], "specialty coffee, cakes and fast Wi-Fi"],
  ["gym", ["Fitness Club", "Gym", "Training Lab"], "open 6 am to 11 pm, classes and personal trainers"],
  ["bookshop", ["Livraria", "Books", "Reading Room"], "new and used books, events every Thursday"],
  ["laundry", ["Lavandaria", "Laundry", "Wash House"], "self-service machines and same-day service"],
  ["car garage", ["Auto Service", "Garage", "Car Care"], "servicing, tyres, inspections and repairs"],
  ["florist", ["Flores", "Florist", "Bloom"], "bouquets, plants and same-day delivery"],
];
const BUSINESS_OWNERS = ["Silva", "Costa", "Santos", "Ferreira", "Almeida", "Martins", "Oliveira", "Sousa", "Nova", "Central", "Estrela", "Rosa", "Atlantico", "Sol"];
const NEIGHBOURHOODS: Record<string, string[]> = {
  Lisbon: ["Alfama", "Baixa", "Chiado", "Principe Real", "Alcantara", "Campo de Ourique", "Areeiro", "Belem", "Graca", "Arroios"],
  Porto: ["Ribeira", "Bonfim", "Cedofeita", "Boavista", "Foz"],
  Madrid: ["Malasana", "Lavapies", "Salamanca", "Chamberi"],
  London: ["Hackney", "Brixton", "Camden", "Islington"],
  Paris: ["Le Marais", "Montmartre", "Belleville", "Saint-Germain"],
};
const LOCAL_SITES = ["www.localfinder.example", "www.neighbourhood-guide.example", "reviews.townlist.example"];
const STREETS = ["Rua Augusta", "Rua do Carmo", "Rua da Prata", "Avenida Almirante Reis", "Rua de Sao Bento", "Rua Garrett", "Calcada do Combro", "Rua da Madalena"];

function localPages(): void {
  for (const [city, areas] of Object.entries(NEIGHBOURHOODS)) {
    const perType = city === "Lisbon" ? 12 : 5;
    for (const [type, suffixes, offer] of BUSINESS_TYPES) {
      for (let index = 0; index < perType; index++) {
        const area = pick(areas);
        const name = `${pick(BUSINESS_OWNERS)} ${pick(suffixes)}`;
        const street = city === "Lisbon" || city === "Porto" ? pick(STREETS) : `${pick(["High Street", "Market Street", "Station Road", "Park Lane", "Calle Mayor", "Rue Centrale"])}`;
        const rating = (between(34, 50) / 10).toFixed(1);
        const opens = pick(["8:00", "9:00", "10:00", "7:00"]);
        const closes = pick(["18:00", "19:00", "20:00", "22:00"]);
        const title = `${name} — ${type} in ${area}, ${city}`;
        addPage(pick(LOCAL_SITES), `${slug(city)}/${slug(type)}/${slug(`${name} ${area}`)}`, title, "local", [
          `${name} is a ${type} in ${area}, ${city}: ${offer}.`,
          `Address: ${street} ${between(1, 180)}, ${area}, ${city}. Phone: +${city === "Lisbon" || city === "Porto" ? "351 21" : "34 91"}${between(1000000, 9999999)}. Open ${pick(["Monday to Friday", "Monday to Saturday", "every day"])} ${opens}–${closes}.`,
          `Rated ${rating} out of 5 from ${between(12, 900)} reviews. "${pick([
            "Friendly staff and fair prices.",
            "A bit of a wait at peak times but worth it.",
            "The best in the neighbourhood.",
            "Booked online, easy and on time.",
            "Small place, big heart.",
          ])}"`,
        ]);
      }
    }
  }
}

// Product reviews ----------------------------------------------------------------

const PRODUCTS: [string, string[], [number, number]][] = [
  ["wireless headphones", ["noise cancelling", "battery life", "comfort", "call quality"], [60, 400]],
  ["robot vacuum", ["suction", "mapping", "noise", "edge cleaning"], [150, 900]],
  ["electric bike", ["range", "motor", "weight", "brakes"], [900, 3500]],
  ["laptop", ["battery life", "screen", "keyboard", "performance"], [500, 2500]],
  ["smartphone", ["camera", "battery life", "screen", "updates"], [200, 1300]],
  ["coffee machine", ["espresso quality", "milk frother", "ease of cleaning", "speed"], [80, 1200]],
  ["air fryer", ["capacity", "crispiness", "noise", "ease of cleaning"], [50, 250]],
  ["running shoes", ["cushioning", "grip", "weight", "durability"], [70, 220]],
  ["smartwatch", ["battery life", "GPS accuracy", "heart-rate sensor", "apps"], [100, 800]],
  ["mattress", ["support", "cooling", "edge support", "motion isolation"], [300, 2000]],
  ["tent", ["weight", "waterproofing", "pitching time", "space"], [80, 700]],
  ["electric toothbrush", ["cleaning", "battery life", "pressure sensor", "brush head price"], [30, 250]],
  ["monitor", ["colour accuracy", "refresh rate", "stand", "ports"], [120, 900]],
  ["blender", ["power", "noise", "jar size", "ease of cleaning"], [40, 500]],
  ["kids' car seat", ["safety rating", "ease of fitting", "comfort", "weight"], [90, 500]],
];
const BRANDS = ["Novalux", "Arden", "Kestrel", "Vireo", "Halcyon", "Orbis", "Tellus", "Quill", "Sable", "Meridian", "Corvo", "Lumen"];
const REVIEW_SITES = ["www.honestbench.example", "reviews.testedright.example", "www.buyersnotebook.example"];

function reviewPages(): void {
  for (const [product, qualities, [low, high]] of PRODUCTS) {
    const models: string[] = [];
    for (const brand of pickSome(BRANDS, 12)) {
      const model = `${brand} ${pick(["One", "Pro", "Air", "Max", "S", "Lite", "X", "Go"])}${pick(["", " 2", " 3", " 5", " Plus"])}`;
      models.push(model);
      const price = between(low, high);
      const score = between(55, 95) / 10;
      const [best, worst] = pickSome(qualities, 2) as [string, string];
      addPage(pick(REVIEW_SITES), `reviews/${slug(`${model} ${product}`)}`, `${model} review: ${product} with great ${best}`, "reviews", [
        `We tested the ${model} ${product} for ${between(2, 8)} weeks. Price at review: ${price} EUR. Score: ${score.toFixed(1)}/10.`,
        `Pros: excellent ${best}, ${pick(["solid build", "good value", "easy setup", "attractive design"])}. Cons: ${worst} ${pick(["could be better", "lags behind rivals", "is only average"])}, ${pick(["no carrying case", "short warranty", "app needs an account", "bulky"])}.`,
        `Verdict: ${score >= 8 ? "recommended" : score >= 7 ? "a good choice if the price is right" : "look at alternatives first"}.`,
      ]);
    }
    const title = `The best ${product} of 2026: ${models.length} tested`;
    addPage(pick(REVIEW_SITES), `best/${slug(`best ${product} 2026`)}`, title, "reviews", [
      `${title}. Our top pick is the ${models[0]}; best value is the ${models[1]}; the budget choice is the ${models[2]}.`,
      `How we test: we compare ${qualities.join(", ")} side by side in everyday use.`,
    ]);
  }
}

// History, science, money, gardening, pets ----------------------------------------

const HISTORY: [string, string][] = [
  ["the 1755 Lisbon earthquake", "On 1 November 1755 an earthquake, followed by a tsunami and fires, destroyed much of Lisbon. The rebuilt Baixa district was planned with wide, straight streets."],
  ["the Carnation Revolution", "On 25 April 1974 a largely peaceful military coup in Portugal ended the Estado Novo dictatorship; people placed carnations in soldiers' rifles."],
  ["the Age of Discovery", "In the 15th and 16th centuries Portuguese and Spanish navigators explored sea routes to Africa, Asia and the Americas."],
  ["Vasco da Gama's voyage to India", "Vasco da Gama sailed from Lisbon in 1497 and reached Calicut in India in 1498, opening a sea route around Africa."],
  ["the fall of the Berlin Wall", "The Berlin Wall, built in 1961, was opened on 9 November 1989; Germany was reunified in 1990."],
  ["the first Moon landing", "Apollo 11 landed on the Moon on 20 July 1969; Neil Armstrong and Buzz Aldrin walked on the surface."],
  ["the printing press", "Johannes Gutenberg's movable-type printing press, around 1450 in Mainz, made books far cheaper to produce."],
  ["the Roman aqueducts", "Roman engineers built aqueducts that carried water over long distances using a gentle, steady downhill slope."],
  ["the Industrial Revolution", "From the late 18th century, steam power and factories transformed work in Britain and then across the world."],
  ["the Great Fire of London", "In September 1666 a fire that began in a bakery on Pudding Lane burned much of the City of London."],
  ["the building of the pyramids of Giza", "The Great Pyramid of Giza was built for the pharaoh Khufu around 2560 BC."],
  ["the French Revolution", "The storming of the Bastille on 14 July 1789 became the symbol of the French Revolution."],
  ["the invention of the telephone", "Alexander Graham Bell received a patent for the telephone in 1876."],
  ["the Wright brothers' first flight", "On 17 December 1903 the Wright brothers made the first powered, controlled aeroplane flights near Kitty Hawk."],
  ["the Silk Road", "The Silk Road was a network of trade routes linking China with Central Asia, the Middle East and Europe."],
  ["the Black Death", "The Black Death swept through Europe between 1347 and 1351 and killed a large share of the population."],
  ["the Magna Carta", "King John of England agreed to the Magna Carta in 1215, limiting royal power."],
  ["the first World Wide Web page", "Tim Berners-Lee proposed the World Wide Web at CERN in 1989; the first website went online in 1991."],
  ["the Tower of Belem", "The Tower of Belem in Lisbon was built in the early 16th century to guard the entrance to the Tagus."],
  ["the Jeronimos Monastery", "The Jeronimos Monastery in Lisbon, begun in 1501, is a landmark of the Manueline style."],
];
const SCIENCE: [string, string][] = [
  ["why the sky is blue", "Air molecules scatter short blue wavelengths of sunlight more than red ones, so the sky looks blue."],
  ["how rainbows form", "Sunlight is refracted, reflected and dispersed inside raindrops, splitting white light into colours."],
  ["how vaccines work", "Vaccines train the immune system to recognise a germ without causing the disease."],
  ["what causes tides", "Tides are caused mainly by the Moon's gravity, with a smaller effect from the Sun."],
  ["how solar panels work", "Solar cells turn light into electricity through the photovoltaic effect in semiconductors."],
  ["why leaves change colour in autumn", "As chlorophyll breaks down in autumn, yellow and orange pigments show and red ones are made."],
  ["how black holes form", "A black hole can form when a very massive star collapses under its own gravity."],
  ["what DNA is", "DNA is the molecule that carries genetic instructions, made of two strands wound into a double helix."],
  ["how earthquakes happen", "Earthquakes happen when stress built up along faults between tectonic plates is suddenly released."],
  ["why we have seasons", "Seasons come from the tilt of Earth's axis, about 23.4 degrees, not from the distance to the Sun."],
  ["how batteries store energy", "Batteries store energy chemically and release it as electrons flow through a circuit."],
  ["what causes thunder", "Lightning heats the air so fast that it expands explosively, which we hear as thunder."],
  ["how the heart pumps blood", "The heart's four chambers pump blood to the lungs and then around the body."],
  ["why the ocean is salty", "Rivers carry dissolved minerals from rocks to the sea, where evaporation leaves the salt behind."],
  ["how GPS works", "A GPS receiver works out its position from the timing of signals sent by several satellites."],
  ["what a light year is", "A light year is a distance: how far light travels in one year, about 9.46 trillion kilometres."],
];
const MONEY: [string, string][] = [
  ["make a monthly budget", "List income, fixed costs and spending; the 50/30/20 rule splits needs, wants and savings."],
  ["build an emergency fund", "Aim for three to six months of essential costs in an easy-access savings account."],
  ["pay off debt faster", "Pay the highest-interest debt first while making minimum payments on the rest."],
  ["save on groceries", "Plan meals, shop with a list and compare unit prices."],
  ["understand compound interest", "Compound interest earns interest on past interest, so time in the market matters."],
  ["cut your energy bill", "Lower the thermostat by one degree, seal draughts and switch to LED bulbs."],
  ["start investing", "Low-cost index funds spread risk; invest regularly and for the long term."],
  ["avoid scams", "Never share codes or card details with callers; banks do not ask for them."],
  ["split bills with flatmates", "Agree on a shared app or account and settle up monthly."],
  ["plan for retirement", "Start early, use workplace pension schemes and review contributions every year."],
  ["choose a credit card", "Compare interest rates, fees and rewards; pay the balance in full each month."],
  ["save for a holiday", "Open a separate savings pot and set up an automatic transfer on payday."],
];
const GARDEN: [string, string][] = [
  ["grow tomatoes on a balcony", "Tomatoes need six to eight hours of sun, a large pot and regular watering."],
  ["care for houseplants in winter", "Water less, keep plants away from radiators and give them the brightest window."],
  ["start composting", "Mix green waste like vegetable scraps with brown waste like cardboard and turn it now and then."],
  ["grow herbs indoors", "Basil, parsley and mint grow well on a sunny windowsill in well-drained pots."],
  ["prune roses", "Prune roses in late winter, cutting above an outward-facing bud."],
  ["plant spring bulbs", "Plant tulips and daffodils in autumn, about three times as deep as the bulb is tall."],
  ["attract bees to the garden", "Plant a variety of flowers that bloom from spring to autumn and avoid pesticides."],
  ["keep a lawn green", "Water deeply but less often, and mow high in hot weather."],
  ["grow lemons in a pot", "Lemon trees need sun, free-draining compost and shelter from frost."],
  ["repot a plant", "Move up one pot size, loosen the roots and water well afterwards."],
];
const PETS: [string, string][] = [
  ["house-train a puppy", "Take the puppy out after meals, naps and play, and reward it straight away."],
  ["keep a cat entertained indoors", "Short daily play sessions, scratching posts and window perches keep indoor cats happy."],
  ["choose dog food", "Pick a complete food suited to the dog's age and size; change food gradually."],
  ["travel with a pet", "Check the carrier's rules, microchip and vaccinations well before the trip."],
  ["trim a dog's nails", "Trim a little at a time and avoid the quick; ask a vet to show you the first time."],
  ["care for a rabbit", "Rabbits need hay, space to run, company and regular vet checks."],
  ["introduce a new cat", "Keep the cats apart at first and swap bedding so they learn each other's scent."],
  ["keep pets safe in hot weather", "Never leave a pet in a car, walk dogs early and provide shade and water."],
];

function explainerPages(topic: string, sites: string[], facts: [string, string][], angles: string[]): void {
  for (const [subject, fact] of facts) {
    for (const angle of angles) {
      const title = fill(angle, { subject, Subject: capitalise(subject) });
      addPage(pick(sites), `${topic}/${slug(title)}`, title, topic, [
        fact,
        pick([
          `In short: ${fact.split(".")[0]}.`,
          `Why it matters: understanding ${subject} helps make sense of ${pick(["everyday life", "the news", "the world around us", "history"])}.`,
          `Further reading: see our related guides on ${pick(facts)[0]} and ${pick(facts)[0]}.`,
        ]),
        `${pick(["Last reviewed", "Updated", "First published"])} by the ${pick(["editorial team", "research desk", "features team"])}.`,
      ]);
    }
  }
}

recipePages();
travelPages();
techPages();
healthPages();
sportsPages();
localPages();
reviewPages();
explainerPages("history", ["www.pastpages.example", "history.timelines.example"], HISTORY, ["{Subject}: what happened", "{Subject} explained", "Five facts about {subject}", "{Subject}: a short history", "Why {subject} still matters"]);
explainerPages("science", ["www.curiousscience.example", "science.plainfacts.example"], SCIENCE, ["{Subject}: explained simply", "The science of {subject}", "Ask a scientist: {subject}", "{Subject} for kids"]);
explainerPages("money", ["www.moneysense.example", "www.budgetwise.example"], MONEY, ["How to {subject}", "{Subject}: a step-by-step guide", "Mistakes to avoid when you {subject}", "{Subject} in 2026"]);
explainerPages("gardening", ["www.greenthumbs.example", "garden.potandplot.example"], GARDEN, ["How to {subject}", "{Subject}: a beginner's guide", "{Subject}: common problems"]);
explainerPages("pets", ["www.pawsandclaws.example", "pets.happytails.example"], PETS, ["How to {subject}", "{Subject}: a vet's advice", "{Subject}: what new owners should know"]);

// ---------------------------------------------------------------------------
// News (ages in hours; the app turns them into dates against the profile clock)

interface NewsItem {
  id: string;
  topic: string;
  title: string;
  summary: string;
  body: string;
  source: string;
  ageHours: number;
}

const NEWS_SOURCES = ["Daily Ledger", "Morning Wire", "Atlantic Post", "City Herald", "Tejo Times", "Global Brief"];
const NEWS_TEMPLATES: Record<string, { titles: string[]; bodies: string[] }> = {
  world: {
    titles: [
      "Leaders meet in {city} for talks on {issue}",
      "{country} announces new plan on {issue}",
      "Summit in {city} ends with agreement on {issue}",
      "Protests in {city} over {issue}",
    ],
    bodies: [
      "Delegations from more than {n} countries took part. Officials said a follow-up meeting is planned for next year.",
      "The announcement follows months of negotiation. Critics say the plan does not go far enough.",
    ],
  },
  business: {
    titles: [
      "{company} shares rise after strong quarter",
      "{company} to open new office in {city}",
      "Inflation in the euro area eases to {pct}%",
      "{company} recalls {n},000 devices over battery fault",
      "Central bank holds interest rates at {pct}%",
    ],
    bodies: [
      "Analysts had expected a weaker result. The company raised its forecast for the rest of the year.",
      "The move is expected to create {n}0 jobs. Local officials welcomed the decision.",
    ],
  },
  technology: {
    titles: [
      "{company} unveils a new {gadget}",
      "New {gadget} promises two-day battery life",
      "Researchers in {city} build a faster way to train AI models",
      "Update fixes security flaw in popular {gadget}s",
      "Small language models now run on phones, study finds",
    ],
    bodies: [
      "The device goes on sale next month. Early reviewers praised the battery but questioned the price.",
      "Users are advised to install the update as soon as possible. No attacks have been reported.",
    ],
  },
  science: {
    titles: [
      "Astronomers spot a new comet visible from {city}",
      "Study links daily walks to better sleep",
      "Scientists map deep-sea reef off {country}",
      "New battery chemistry could cut charging time by half",
    ],
    bodies: [
      "The findings were published in a peer-reviewed journal. The team plans a larger study next year.",
      "Researchers cautioned that more work is needed before the results can be applied.",
    ],
  },
  sports: {
    titles: [
      "{team} win late to go top of the league",
      "{team} sign new striker from {team2}",
      "{city} to host the marathon next spring",
      "{team} and {team2} share the points",
    ],
    bodies: [
      "The winning goal came in the {n}th minute. The coach praised the team's patience.",
      "Fans packed the stadium despite the rain. The next match is on Saturday.",
    ],
  },
  health: {
    titles: [
      "Flu season arrives early, doctors urge vaccination",
      "Hospitals in {city} cut waiting times",
      "New guidelines recommend more daily movement",
      "Pharmacies to offer free blood pressure checks",
    ],
    bodies: [
      "Health officials recommend vaccination for people over 65 and those with chronic conditions.",
      "The programme starts next month and runs until the end of the year.",
    ],
  },
  entertainment: {
    titles: [
      "Film shot in {city} wins top festival prize",
      "{artist} announces world tour with a stop in {city}",
      "Streaming series breaks viewing record",
      "Museum in {city} opens major new exhibition",
    ],
    bodies: [
      "Tickets go on sale on Friday. Organisers expect the dates to sell out quickly.",
      "Critics praised the cast and the music. A second season has been confirmed.",
    ],
  },
  local: {
    titles: [
      "Lisbon extends tram 28 service hours",
      "New bike lanes open on Avenida da Liberdade",
      "Lisbon farmers' market moves to {area}",
      "Metro line closed this weekend for works between {area} and {area2}",
      "Christmas lights switched on in {area}",
      "Water supply interrupted in {area} on Tuesday morning",
    ],
    bodies: [
      "The city council said the change follows requests from residents. Work is expected to finish within weeks.",
      "Replacement buses will run every ten minutes. Check the operator's website before travelling.",
    ],
  },
};
const ISSUES = ["climate", "trade", "energy prices", "migration", "housing", "ocean protection", "food security"];
const COMPANIES = ["Orbis Systems", "Tellus Energy", "Kestrel Motors", "Novalux", "Meridian Foods", "Quill Software", "Halcyon Air"];
const GADGETS = ["phone", "laptop", "smartwatch", "tablet", "e-reader", "router"];
const ARTISTS = ["The Quiet Tides", "Mara Sol", "Neon Harbour", "Jonah Reyes", "Lua Azul"];

function newsItems(): NewsItem[] {
  const items: NewsItem[] = [];
  const topics = Object.keys(NEWS_TEMPLATES);
  for (let index = 0; index < 320; index++) {
    const topic = topics[index % topics.length]!;
    const templates = NEWS_TEMPLATES[topic]!;
    const city = pick(CITIES);
    const [team, team2] = pickSome(TEAMS, 2) as [string, string];
    const [area, area2] = pickSome(NEIGHBOURHOODS.Lisbon!, 2) as [string, string];
    const values = {
      city: city.name,
      country: city.country,
      issue: pick(ISSUES),
      company: pick(COMPANIES),
      gadget: pick(GADGETS),
      artist: pick(ARTISTS),
      team,
      team2,
      area,
      area2,
      n: between(2, 9),
      pct: (between(15, 45) / 10).toFixed(1),
    };
    const title = fill(pick(templates.titles), values);
    const body = fill(pick(templates.bodies), values);
    const source = pick(NEWS_SOURCES);
    items.push({
      id: `news-${index + 1}`,
      topic,
      title,
      summary: `${title}. ${body.split(".")[0]}.`,
      body: `${title}. ${body} ${fill(pick(templates.bodies), values)} Reporting by the ${source} ${topic} desk.`,
      source,
      ageHours: Math.round((index / 320) * 24 * 7 + between(0, 5)),
    });
  }
  return items;
}

// ---------------------------------------------------------------------------
// Write

function write(path: string, content: Buffer | string): void {
  const full = join(root, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, content);
}

const corpus = pages.map((page) => JSON.stringify(page)).join("\n") + "\n";
write("data/web/corpus.jsonl.gz", gzipSync(corpus, { level: 9 }));
write("data/news/feed.json", JSON.stringify({ generatedBy: "scripts/generate-web-corpus.ts", items: newsItems() }, null, 1) + "\n");
write("data/weather/cities.json", JSON.stringify({ generatedBy: "scripts/generate-web-corpus.ts", cities: CITIES }, null, 1) + "\n");

const topics = new Map<string, number>();
for (const page of pages) topics.set(page.topic, (topics.get(page.topic) ?? 0) + 1);
console.log(`web pages: ${pages.length} (${[...topics].map(([topic, count]) => `${topic} ${count}`).join(", ")}); ${(corpus.length / 1e6).toFixed(1)} MB before compression`);
