/**
 * The recipes app's bundled recipe book. Ingredients are written "quantity
 * unit name" (unit optional) and parsed once at load.
 */
export interface Ingredient {
  name: string;
  quantity: number;
  /** "" for things counted (2 eggs). */
  unit: string;
}

export interface Recipe {
  id: string;
  name: string;
  cuisine: string;
  minutes: number;
  servings: number;
  tags: string[];
  ingredients: Ingredient[];
  steps: string[];
}

export const UNITS = ["g", "kg", "ml", "l", "tbsp", "tsp", "cup", "clove", "pinch", "slice", "can", "bunch"] as const;

function parseIngredient(text: string): Ingredient {
  const [amount, maybeUnit, ...rest] = text.trim().split(/\s+/);
  const quantity = Number(amount);
  if (!Number.isFinite(quantity) || maybeUnit === undefined) throw new Error(`Bad bundled ingredient "${text}"`);
  if ((UNITS as readonly string[]).includes(maybeUnit)) return { quantity, unit: maybeUnit, name: rest.join(" ") };
  return { quantity, unit: "", name: [maybeUnit, ...rest].join(" ") };
}

type Row = [string, string, string, number, number, string, string, string];

const rows: Row[] = [
  ["bacalhau-a-bras", "Bacalhau à Brás", "portuguese", 40, 4, "fish,classic", "400 g salted cod|500 g potatoes|6 eggs|2 onions|3 tbsp olive oil|2 clove garlic|1 bunch parsley|60 g black olives", "Soak and flake the cod.|Fry thin potato sticks.|Soften onion and garlic, add cod and potatoes, stir in beaten eggs until creamy.|Top with parsley and olives."],
  ["caldo-verde", "Caldo Verde", "portuguese", 35, 4, "soup,classic", "600 g potatoes|1 onion|2 clove garlic|200 g kale|150 g chouriço|4 tbsp olive oil|1.5 l water", "Boil potatoes, onion and garlic until soft; blend.|Add finely shredded kale, simmer 5 minutes.|Serve with slices of chouriço and olive oil."],
  ["pasteis-de-nata", "Pastéis de Nata", "portuguese", 75, 12, "dessert,baking", "1 sheet puff pastry|500 ml milk|200 g sugar|6 egg yolks|40 g flour|1 lemon|1 cinnamon stick", "Line tins with rolled pastry.|Cook milk, flour, sugar syrup, lemon peel and cinnamon into a custard; whisk in yolks.|Fill tins and bake at 290 °C for 10 minutes."],
  ["arroz-de-pato", "Arroz de Pato", "portuguese", 120, 6, "meat,oven", "1 duck|400 g rice|150 g chouriço|1 onion|2 carrots|2 clove garlic|1 orange", "Simmer the duck with onion and carrot for an hour; shred the meat.|Cook the rice in the broth.|Layer rice, duck and chouriço; bake until crisp."],
  ["bifana", "Bifana", "portuguese", 30, 4, "meat,sandwich,quick", "500 g pork steaks|4 bread rolls|4 clove garlic|200 ml white wine|1 tsp paprika|2 tbsp lard", "Marinate pork in wine, garlic and paprika.|Fry quickly in lard, then simmer in the marinade.|Serve in rolls with mustard."],
  ["sardinhas-assadas", "Grilled Sardines", "portuguese", 25, 4, "fish,grill,quick", "12 sardines|2 tbsp coarse salt|4 slice bread|2 green peppers|1 lemon", "Salt the sardines for 20 minutes.|Grill over hot coals 3 minutes a side.|Serve on bread with grilled peppers and lemon."],
  ["polvo-a-lagareiro", "Polvo à Lagareiro", "portuguese", 90, 4, "fish,oven", "1.5 kg octopus|800 g small potatoes|6 clove garlic|150 ml olive oil|1 bunch parsley", "Boil the octopus until tender.|Roast the potatoes, punch them open.|Roast the octopus with garlic and plenty of olive oil; add parsley."],
  ["feijoada", "Feijoada", "portuguese", 150, 6, "meat,stew", "500 g dried beans|300 g pork ribs|200 g chouriço|1 onion|2 carrots|1 can tomatoes|2 clove garlic", "Soak beans overnight and cook until tender.|Brown the meats with onion and garlic.|Stew everything with tomatoes and carrots for an hour."],
  ["spaghetti-carbonara", "Spaghetti Carbonara", "italian", 25, 4, "pasta,quick", "400 g spaghetti|150 g guanciale|4 egg yolks|1 egg|80 g pecorino|1 tsp black pepper", "Cook the pasta.|Crisp the guanciale.|Toss pasta with guanciale off the heat, then with the beaten eggs and cheese; loosen with pasta water."],
  ["margherita-pizza", "Pizza Margherita", "italian", 90, 2, "baking,vegetarian", "300 g flour|200 ml water|5 g yeast|1 tsp salt|200 g tomato passata|150 g mozzarella|1 bunch basil", "Knead the dough and let it rise an hour.|Stretch, top with passata and mozzarella.|Bake as hot as your oven goes; finish with basil."],
  ["risotto-funghi", "Mushroom Risotto", "italian", 40, 4, "vegetarian,rice", "320 g arborio rice|300 g mushrooms|1 onion|1 l vegetable stock|100 ml white wine|50 g parmesan|30 g butter", "Soften the onion, toast the rice, add wine.|Add stock a ladle at a time with the mushrooms.|Finish with butter and parmesan."],
  ["lasagne", "Lasagne", "italian", 100, 6, "pasta,oven", "12 lasagne sheets|500 g minced beef|1 onion|2 can tomatoes|500 ml milk|50 g butter|50 g flour|100 g parmesan", "Make a ragù with the beef, onion and tomatoes.|Make a béchamel with butter, flour and milk.|Layer sheets, ragù and béchamel; bake 40 minutes."],
  ["minestrone", "Minestrone", "italian", 50, 6, "soup,vegetarian,vegan", "2 carrots|2 celery sticks|1 onion|2 courgettes|1 can tomatoes|1 can cannellini beans|100 g small pasta|1.5 l vegetable stock", "Soften the vegetables.|Add tomatoes, beans and stock; simmer 20 minutes.|Add pasta and cook until done."],
  ["tiramisu", "Tiramisu", "italian", 30, 6, "dessert,no-bake", "250 g mascarpone|3 eggs|80 g sugar|200 g ladyfingers|300 ml coffee|2 tbsp cocoa", "Beat yolks with sugar, fold in mascarpone and whipped whites.|Dip ladyfingers in coffee and layer with the cream.|Chill 4 hours; dust with cocoa."],
  ["paella", "Paella Valenciana", "spanish", 60, 6, "rice,meat", "400 g bomba rice|500 g chicken thighs|200 g green beans|1 can butter beans|1 tsp paprika|1 pinch saffron|1.2 l chicken stock", "Brown the chicken in a wide pan.|Add beans, paprika, saffron and stock.|Scatter in the rice and cook without stirring."],
  ["gazpacho", "Gazpacho", "spanish", 15, 4, "soup,vegan,vegetarian,quick,no-cook", "1 kg tomatoes|1 cucumber|1 red pepper|1 clove garlic|50 ml olive oil|2 tbsp sherry vinegar|2 slice bread", "Blend everything until smooth.|Season and chill for an hour."],
  ["tortilla", "Tortilla Española", "spanish", 45, 4, "vegetarian,eggs", "6 eggs|600 g potatoes|1 onion|200 ml olive oil|1 tsp salt", "Slowly fry sliced potatoes and onion in the oil.|Drain, mix with beaten eggs.|Cook in a pan, flip with a plate, cook the other side."],
  ["patatas-bravas", "Patatas Bravas", "spanish", 40, 4, "vegetarian,tapas", "800 g potatoes|2 tbsp olive oil|1 can tomatoes|1 tsp smoked paprika|1 pinch chilli|100 ml mayonnaise", "Roast cubed potatoes until crisp.|Simmer tomatoes with paprika and chilli into a sauce.|Serve with the sauce and mayonnaise."],
  ["chicken-curry", "Chicken Curry", "indian", 45, 4, "meat,spicy", "600 g chicken thighs|2 onions|3 clove garlic|1 tbsp ginger|2 tbsp curry paste|1 can coconut milk|1 can tomatoes|300 g rice", "Soften onion, garlic and ginger; fry the curry paste.|Add chicken, tomatoes and coconut milk; simmer 25 minutes.|Serve with rice."],
  ["dal", "Red Lentil Dal", "indian", 35, 4, "vegan,vegetarian,soup", "250 g red lentils|1 onion|2 clove garlic|1 tsp turmeric|1 tsp cumin|1 can coconut milk|800 ml water|1 lime", "Simmer lentils with turmeric in water until soft.|Fry onion, garlic and cumin; stir in.|Add coconut milk and lime."],
  ["chana-masala", "Chana Masala", "indian", 40, 4, "vegan,vegetarian,spicy", "2 can chickpeas|1 onion|2 clove garlic|1 tbsp ginger|2 tsp garam masala|1 can tomatoes|1 bunch coriander", "Soften onion, garlic and ginger with the spices.|Add tomatoes and chickpeas; simmer 20 minutes.|Finish with coriander."],
  ["pad-thai", "Pad Thai", "thai", 30, 2, "noodles,quick", "200 g rice noodles|200 g prawns|2 eggs|100 g bean sprouts|3 tbsp tamarind paste|2 tbsp fish sauce|50 g peanuts|1 lime", "Soak the noodles.|Stir-fry prawns, push aside and scramble the eggs.|Toss in noodles and sauce; finish with sprouts, peanuts and lime."],
  ["green-curry", "Thai Green Curry", "thai", 35, 4, "spicy,meat", "500 g chicken breast|2 tbsp green curry paste|1 can coconut milk|1 aubergine|100 g green beans|1 bunch thai basil|300 g jasmine rice", "Fry the paste in a little coconut cream.|Add chicken, vegetables and the rest of the milk; simmer.|Serve with basil and rice."],
  ["tom-yum", "Tom Yum Soup", "thai", 25, 4, "soup,spicy,quick", "300 g prawns|200 g mushrooms|2 stalks lemongrass|4 lime leaves|3 tbsp fish sauce|2 lime|1 l chicken stock", "Simmer stock with lemongrass and lime leaves.|Add mushrooms and prawns until pink.|Season with fish sauce and lime juice."],
  ["fried-rice", "Egg Fried Rice", "chinese", 20, 2, "rice,quick,vegetarian", "300 g cooked rice|2 eggs|100 g peas|2 spring onions|2 tbsp soy sauce|1 tbsp sesame oil", "Scramble the eggs in a hot wok.|Add rice and peas, stir-fry until hot.|Season with soy and sesame; add spring onions."],
  ["kung-pao-chicken", "Kung Pao Chicken", "chinese", 30, 3, "meat,spicy,quick", "450 g chicken breast|60 g peanuts|6 dried chillies|3 clove garlic|2 tbsp soy sauce|1 tbsp vinegar|1 tbsp sugar", "Stir-fry chillies and garlic.|Add chicken until cooked.|Add sauce and peanuts; toss."],
  ["ramen", "Shoyu Ramen", "japanese", 45, 2, "noodles,soup", "200 g ramen noodles|1 l chicken stock|3 tbsp soy sauce|2 eggs|150 g pork belly|2 spring onions|1 sheet nori", "Soft-boil the eggs.|Season the stock with soy sauce.|Serve noodles in the broth with pork, egg, spring onion and nori."],
  ["teriyaki-salmon", "Teriyaki Salmon", "japanese", 25, 2, "fish,quick", "2 salmon fillets|3 tbsp soy sauce|2 tbsp mirin|1 tbsp honey|200 g rice|1 broccoli", "Cook rice and steam the broccoli.|Pan-fry the salmon.|Add soy, mirin and honey; glaze."],
  ["tacos-al-pastor", "Tacos al Pastor", "mexican", 50, 4, "meat,spicy", "600 g pork shoulder|12 corn tortillas|1 pineapple|2 tbsp chilli paste|1 onion|1 bunch coriander|2 lime", "Marinate pork in chilli paste.|Grill with pineapple slices, then chop.|Serve in tortillas with onion, coriander and lime."],
  ["guacamole", "Guacamole", "mexican", 10, 4, "vegan,vegetarian,quick,no-cook", "3 avocados|1 lime|1 tomato|0.5 onion|1 chilli|1 bunch coriander", "Mash the avocados with lime.|Fold in chopped tomato, onion, chilli and coriander."],
  ["chili-con-carne", "Chili con Carne", "mexican", 70, 6, "meat,stew,spicy", "500 g minced beef|1 onion|2 clove garlic|2 tsp chilli powder|1 tsp cumin|2 can tomatoes|2 can kidney beans|300 g rice", "Brown beef with onion, garlic and spices.|Add tomatoes and beans; simmer 45 minutes.|Serve with rice."],
  ["shakshuka", "Shakshuka", "middle eastern", 30, 2, "vegetarian,eggs,quick", "4 eggs|1 onion|1 red pepper|2 clove garlic|1 can tomatoes|1 tsp cumin|1 tsp paprika|50 g feta", "Soften onion and pepper with spices.|Add tomatoes and simmer 10 minutes.|Make hollows, crack in eggs, cover until set; add feta."],
  ["hummus", "Hummus", "middle eastern", 10, 6, "vegan,vegetarian,quick,no-cook", "2 can chickpeas|3 tbsp tahini|1 lemon|1 clove garlic|3 tbsp olive oil|1 tsp cumin", "Blend everything with a splash of chickpea water until smooth."],
  ["falafel", "Falafel", "middle eastern", 40, 4, "vegan,vegetarian", "250 g dried chickpeas|1 onion|3 clove garlic|1 bunch parsley|1 tsp cumin|1 tsp coriander seeds|500 ml oil", "Soak chickpeas overnight; blend with onion, garlic, herbs and spices.|Shape into balls.|Fry until deep golden."],
  ["greek-salad", "Greek Salad", "greek", 10, 2, "vegetarian,salad,quick,no-cook", "3 tomatoes|1 cucumber|0.5 red onion|100 g feta|60 g olives|3 tbsp olive oil|1 tsp oregano", "Chop the vegetables.|Top with feta and olives; dress with oil and oregano."],
  ["moussaka", "Moussaka", "greek", 110, 6, "meat,oven", "3 aubergines|500 g minced lamb|1 onion|1 can tomatoes|500 ml milk|50 g butter|50 g flour|2 eggs", "Roast aubergine slices.|Make a lamb and tomato sauce.|Layer with a béchamel enriched with egg; bake 45 minutes."],
  ["beef-burger", "Beef Burger", "american", 25, 4, "meat,grill,quick", "600 g minced beef|4 burger buns|4 slice cheddar|1 tomato|1 lettuce|1 onion", "Shape four patties and season.|Grill 3-4 minutes a side; melt cheese on top.|Build in buns with salad."],
  ["pancakes", "Fluffy Pancakes", "american", 20, 4, "breakfast,vegetarian,quick", "200 g flour|2 eggs|300 ml milk|2 tbsp sugar|2 tsp baking powder|30 g butter", "Whisk the batter.|Cook ladlefuls in a buttered pan until bubbles form; flip."],
  ["banana-bread", "Banana Bread", "american", 70, 8, "baking,breakfast,vegetarian", "3 bananas|250 g flour|100 g sugar|2 eggs|80 g butter|1 tsp baking soda", "Mash bananas, mix with melted butter, sugar and eggs.|Fold in flour and soda.|Bake at 175 °C for 55 minutes."],
  ["overnight-oats", "Overnight Oats", "breakfast", 5, 1, "breakfast,vegetarian,quick,no-cook", "50 g oats|150 ml milk|100 g yogurt|1 tbsp honey|50 g berries", "Stir oats, milk, yogurt and honey in a jar.|Chill overnight; top with berries."],
  ["roast-chicken", "Lemon Roast Chicken", "british", 90, 4, "meat,oven", "1 chicken|1 lemon|4 clove garlic|1 kg potatoes|2 tbsp olive oil|1 bunch thyme", "Stuff the chicken with lemon, garlic and thyme.|Roast with potatoes at 200 °C for 80 minutes.|Rest 10 minutes before carving."],
  ["vegetable-soup", "Winter Vegetable Soup", "portuguese", 40, 6, "soup,vegan,vegetarian", "2 carrots|1 leek|400 g pumpkin|2 potatoes|1 onion|1.5 l water|3 tbsp olive oil", "Simmer all the vegetables in water for 30 minutes.|Blend smooth and finish with olive oil."],
];

export const RECIPES: readonly Recipe[] = rows.map(([id, name, cuisine, minutes, servings, tags, ingredients, steps]) => ({
  id,
  name,
  cuisine,
  minutes,
  servings,
  tags: tags.split(","),
  ingredients: ingredients.split("|").map(parseIngredient),
  steps: steps.split("|"),
}));
