import { z } from "zod";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { App } from "../app.js";
import { capped, findByName, looseNumber, matchesWords } from "../shared.js";
import { addToList, shoppingList } from "../errands/shopping.js";
import { RECIPES, type Ingredient, type Recipe } from "./recipe-book.js";

/**
 * The recipes app reads a bundled book (no state of its own) and writes
 * ingredients to the shopping list, which lives in the shopping app
 * (`shopping/list`): one list for what to buy, whichever app added to it.
 */
export const RECIPES_APP = "recipes";

const MAX_SERVINGS = 50;

const servingsInput = looseNumber(z.number().int().min(1).max(MAX_SERVINGS));

function findRecipe(query: string): Recipe {
  return findByName(RECIPES, query, { what: "recipe", id: (recipe) => recipe.id, name: (recipe) => recipe.name, listTool: "search_recipes" });
}

/** Things counted in whole units: half an egg cannot be bought. */
const WHOLE_UNITS = new Set(["", "clove", "can", "bunch", "slice"]);

function roundQuantity(value: number): number {
  if (value >= 100) return Math.round(value / 5) * 5;
  if (value >= 10) return Math.round(value);
  return Math.round(value * 100) / 100;
}

export function scaleIngredients(recipe: Recipe, servings: number): Ingredient[] {
  const factor = servings / recipe.servings;
  return recipe.ingredients.map((ingredient) => ({ ...ingredient, quantity: roundQuantity(ingredient.quantity * factor) }));
}

function ingredientText(ingredient: Ingredient): string {
  return `${ingredient.quantity}${ingredient.unit === "" ? "" : ` ${ingredient.unit}`} ${ingredient.name}`;
}

const recipeSummary = (recipe: Recipe) => ({ id: recipe.id, name: recipe.name, cuisine: recipe.cuisine, minutes: recipe.minutes, serves: recipe.servings, tags: recipe.tags });

const searchRecipes = defineTool({
  name: "search_recipes",
  description: "Search the recipe book by dish, ingredient, cuisine or tag (vegan, quick, soup…), optionally by time.",
  input: z.object({
    query: z.string().optional().describe('Words to look for, e.g. "cod", "vegan" or "italian"'),
    max_minutes: looseNumber(z.number().int().positive()).optional().describe("Longest cooking time in minutes, e.g. 30"),
  }),
  risk: "read",
  run: ({ query, max_minutes }) => {
    const found = RECIPES.filter(
      (recipe) =>
        (query === undefined ||
          matchesWords(`${recipe.name} ${recipe.cuisine} ${recipe.tags.join(" ")} ${recipe.ingredients.map((item) => item.name).join(" ")}`, query)) &&
        (max_minutes === undefined || recipe.minutes <= max_minutes),
    );
    if (found.length === 0) {
      throw new ToolError("no_results", `No recipes match${query ? ` "${query}"` : ""}${max_minutes ? ` within ${max_minutes} minutes` : ""}. Try one word, such as an ingredient or "quick".`);
    }
    const list = capped(found, 8);
    return { recipes: list.items.map(recipeSummary), more: list.more };
  },
});

const getRecipe = defineTool({
  name: "get_recipe",
  description: "Get a recipe's ingredients and steps, optionally for a number of servings.",
  input: z.object({
    recipe: z.string().describe('Recipe name or id, e.g. "Caldo Verde"'),
    servings: servingsInput.optional().describe("Servings, e.g. 2 (default: the recipe's own)"),
  }),
  risk: "read",
  run: ({ recipe: query, servings }) => {
    const recipe = findRecipe(query);
    const wanted = servings ?? recipe.servings;
    return { ...recipeSummary(recipe), servings: wanted, ingredients: scaleIngredients(recipe, wanted).map(ingredientText), steps: recipe.steps };
  },
});

const scaleRecipe = defineTool({
  name: "scale_recipe",
  description: "Work out a recipe's ingredient quantities for a different number of servings.",
  input: z.object({
    recipe: z.string().describe('Recipe name or id, e.g. "Tortilla Española"'),
    servings: servingsInput.describe("Servings wanted, e.g. 8"),
  }),
  risk: "read",
  run: ({ recipe: query, servings }) => {
    const recipe = findRecipe(query);
    return {
      recipe: recipe.name,
      original_servings: recipe.servings,
      servings,
      factor: Math.round((servings / recipe.servings) * 1000) / 1000,
      ingredients: scaleIngredients(recipe, servings).map((item) => ({ name: item.name, quantity: item.quantity, unit: item.unit === "" ? undefined : item.unit })),
    };
  },
});

const addRecipeToShoppingList = defineTool({
  name: "add_recipe_to_shopping_list",
  description: "Put a recipe's ingredients on the shopping list, for a number of servings.",
  input: z.object({
    recipe: z.string().describe('Recipe name or id, e.g. "Pad Thai"'),
    servings: servingsInput.optional().describe("Servings, e.g. 4 (default: the recipe's own)"),
    skip: z.array(z.string()).max(30).optional().describe('Ingredients you already have, e.g. ["salt", "olive oil"]'),
  }),
  risk: "write",
  run: ({ recipe: query, servings, skip }, context) => {
    const recipe = findRecipe(query);
    const wanted = servings ?? recipe.servings;
    const skipped = (skip ?? []).map((item) => item.trim().toLowerCase()).filter((item) => item !== "");
    const unknown = skipped.filter((item) => !recipe.ingredients.some((ingredient) => matchesWords(ingredient.name, item)));
    if (unknown.length > 0) {
      throw new ToolError("invalid_argument", `skip names ${unknown.map((item) => `"${item}"`).join(", ")}, not in ${recipe.name}. Its ingredients: ${recipe.ingredients.map((item) => item.name).join(", ")}.`);
    }
    const items = scaleIngredients(recipe, wanted)
      .filter((ingredient) => !skipped.some((item) => matchesWords(ingredient.name, item)))
      .map((ingredient) => ({
        name: ingredient.name,
        unit: ingredient.unit,
        quantity: WHOLE_UNITS.has(ingredient.unit) ? Math.ceil(ingredient.quantity) : ingredient.quantity,
      }));
    const touched = addToList(context.store, items, recipe.name);
    return {
      recipe: recipe.name,
      servings: wanted,
      added: touched.map((item) => `${item.name}${item.unit === "" ? ` × ${item.quantity}` : ` ${item.quantity} ${item.unit}`}`),
      skipped: skipped.length > 0 ? skipped : undefined,
      items_on_list: shoppingList(context.store).all().length,
    };
  },
});

export const recipesApp: App = {
  name: RECIPES_APP,
  group: "life",
  title: "Recipes",
  description: "A recipe book: search, scale servings, and add ingredients to the shopping list.",
  tools: [searchRecipes, getRecipe, scaleRecipe, addRecipeToShoppingList],
  view(tx) {
    const byCuisine = new Map<string, string[]>();
    for (const recipe of RECIPES) byCuisine.set(recipe.cuisine, [...(byCuisine.get(recipe.cuisine) ?? []), recipe.name]);
    const list = shoppingList(tx).all();
    const text = [
      `${RECIPES.length} recipes`,
      ...[...byCuisine.entries()].map(([cuisine, names]) => `  ${cuisine}: ${names.join(", ")}`),
      `Shopping list: ${list.length} item${list.length === 1 ? "" : "s"} (botpsy apps show shopping)`,
    ].join("\n");
    return { text, data: { recipes: RECIPES.map(recipeSummary), shoppingListItems: list.length } };
  },
};
