/**
 * Which cases a limited run takes. The first N of a suite are usually one
 * group (the apps suite starts with eight alarm cases), so per-group rates of
 * such a run are empty; an even spread takes the groups in turn instead.
 */

/**
 * At most `limit` items, spread evenly over their groups: the first of each
 * group in turn, then the second of each, and so on. Items keep suite order
 * within a group, and the result keeps suite order overall, so the same limit
 * always picks the same cases.
 */
export function spreadOverGroups<Item>(items: readonly Item[], limit: number, groupOf: (item: Item) => string): Item[] {
  if (limit >= items.length) return [...items];
  const groups = new Map<string, number[]>();
  for (const [index, item] of items.entries()) {
    const group = groupOf(item);
    const members = groups.get(group);
    if (members === undefined) groups.set(group, [index]);
    else members.push(index);
  }
  const chosen: number[] = [];
  for (let round = 0; chosen.length < limit; round++) {
    for (const members of groups.values()) {
      const index = members[round];
      if (index !== undefined && chosen.length < limit) chosen.push(index);
    }
  }
  return chosen.sort((first, second) => first - second).map((index) => items[index]!);
}
