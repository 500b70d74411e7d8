import { type MethodDefinition, StatefulApi, configValue, isRecord } from "./stateful-api.js";

interface Tweet {
  id: number;
  username: string;
  content: string;
  tags: unknown[];
  mentions: unknown[];
  [key: string]: unknown;
}

/** BFCL's TwitterAPI (posting_api): tweets, comments, retweets and follows of one account. */
export class TwitterAPI extends StatefulApi {
  readonly className = "TwitterAPI";
  private username = "john";
  private password = "john123";
  private authenticated = false;
  /** Keyed by the tweet id written as text (JSON keys); ids passed by the model must be integers. */
  private tweets: Record<string, Tweet> = {};
  private comments: Record<string, Array<{ username: string; content: string }>> = {};
  private retweets: Record<string, number[]> = {};
  private followingList: string[] = [];
  private tweetCounter = 0;

  load(config: Record<string, unknown>): void {
    this.username = configValue(config, "username", "john");
    this.password = configValue(config, "password", "john123");
    this.authenticated = configValue(config, "authenticated", false);
    const tweets = configValue<Record<string, unknown>>(config, "tweets", {});
    this.tweets = {};
    for (const [key, tweet] of Object.entries(tweets)) if (isRecord(tweet)) this.tweets[String(Number(key))] = tweet as Tweet;
    this.comments = configValue(config, "comments", {});
    this.retweets = configValue(config, "retweets", {});
    this.followingList = configValue(config, "following_list", ["alice", "bob"]);
    this.tweetCounter = configValue(config, "tweet_counter", 0);
  }

  state(): Record<string, unknown> {
    return structuredClone({
      username: this.username,
      password: this.password,
      authenticated: this.authenticated,
      tweets: this.tweets,
      comments: this.comments,
      retweets: this.retweets,
      following_list: this.followingList,
      tweet_counter: this.tweetCounter,
    });
  }

  /** The tweet for an id; Python looks ints up, so a string id never matches. */
  private findTweet(tweetId: unknown): Tweet | undefined {
    if (typeof tweetId !== "number" || !Number.isInteger(tweetId)) return undefined;
    return Object.hasOwn(this.tweets, String(tweetId)) ? this.tweets[String(tweetId)] : undefined;
  }

  protected readonly methods: Record<string, MethodDefinition> = {
    authenticate_twitter: {
      parameters: ["username", "password"],
      run: (args) => {
        if (args.raw("username") === this.username && args.raw("password") === this.password) {
          this.authenticated = true;
          return { authentication_status: true };
        }
        return { authentication_status: false };
      },
    },
    posting_get_login_status: { parameters: [], run: () => ({ login_status: Boolean(this.authenticated) }) },
    post_tweet: {
      parameters: ["content", "tags?", "mentions?"],
      run: (args) => {
        if (!this.authenticated) return { error: "User not authenticated. Please authenticate before posting." };
        const tweet: Tweet = {
          id: this.tweetCounter,
          username: this.username,
          content: args.string("content"),
          tags: args.has("tags") ? args.list("tags") : [],
          mentions: args.has("mentions") ? args.list("mentions") : [],
        };
        this.tweets[String(this.tweetCounter)] = tweet;
        this.tweetCounter += 1;
        return structuredClone(tweet);
      },
    },
    retweet: {
      parameters: ["tweet_id"],
      run: (args) => {
        if (!this.authenticated) return { error: "User not authenticated. Please authenticate before retweeting." };
        const tweetId = args.raw("tweet_id");
        if (this.findTweet(tweetId) === undefined) return { error: `Tweet with ID ${String(tweetId)} not found.` };
        const mine = (this.retweets[this.username] ??= []);
        if (mine.includes(tweetId as number)) return { retweet_status: "Already retweeted" };
        mine.push(tweetId as number);
        return { retweet_status: "Successfully retweeted" };
      },
    },
    comment: {
      parameters: ["tweet_id", "comment_content"],
      run: (args) => {
        if (!this.authenticated) return { error: "User not authenticated. Please authenticate before commenting." };
        const tweetId = args.raw("tweet_id");
        if (this.findTweet(tweetId) === undefined) return { error: `Tweet with ID ${String(tweetId)} not found.` };
        (this.comments[String(tweetId)] ??= []).push({ username: this.username, content: args.string("comment_content") });
        return { comment_status: "Comment added successfully" };
      },
    },
    mention: {
      parameters: ["tweet_id", "mentioned_usernames"],
      run: (args) => {
        const tweetId = args.raw("tweet_id");
        const tweet = this.findTweet(tweetId);
        if (tweet === undefined) return { error: `Tweet with ID ${String(tweetId)} not found.` };
        tweet.mentions.push(...args.list("mentioned_usernames"));
        return { mention_status: "Users mentioned successfully" };
      },
    },
    follow_user: {
      parameters: ["username_to_follow"],
      run: (args) => {
        if (!this.authenticated) return { error: "User not authenticated. Please authenticate before following." };
        const user = args.string("username_to_follow");
        if (this.followingList.includes(user)) return { follow_status: false };
        this.followingList.push(user);
        return { follow_status: true };
      },
    },
    list_all_following: {
      parameters: [],
      run: () => {
        if (!this.authenticated) return { error: "User not authenticated. Please authenticate before listing following." };
        return { following_list: [...this.followingList] };
      },
    },
    unfollow_user: {
      parameters: ["username_to_unfollow"],
      run: (args) => {
        if (!this.authenticated) return { error: "User not authenticated. Please authenticate before unfollowing." };
        const user = args.string("username_to_unfollow");
        const index = this.followingList.indexOf(user);
        if (index < 0) return { unfollow_status: false };
        this.followingList.splice(index, 1);
        return { unfollow_status: true };
      },
    },
    get_tweet: {
      parameters: ["tweet_id"],
      run: (args) => {
        const tweetId = args.raw("tweet_id");
        const tweet = this.findTweet(tweetId);
        return tweet === undefined ? { error: `Tweet with ID ${String(tweetId)} not found.` } : structuredClone(tweet);
      },
    },
    get_user_tweets: {
      parameters: ["username"],
      run: (args) => {
        const user = args.raw("username");
        return structuredClone(Object.values(this.tweets).filter((tweet) => tweet.username === user));
      },
    },
    search_tweets: {
      parameters: ["keyword"],
      run: (args) => {
        const keyword = args.string("keyword").toLowerCase();
        return structuredClone(
          Object.values(this.tweets).filter(
            (tweet) => tweet.content.toLowerCase().includes(keyword) || tweet.tags.some((tag) => String(tag).toLowerCase() === keyword),
          ),
        );
      },
    },
    get_tweet_comments: {
      parameters: ["tweet_id"],
      run: (args) => {
        const tweetId = args.raw("tweet_id");
        if (this.findTweet(tweetId) === undefined) return { error: `Tweet with ID ${String(tweetId)} not found.` };
        return structuredClone(this.comments[String(tweetId)] ?? []);
      },
    },
    get_user_stats: {
      parameters: ["username"],
      run: (args) => {
        const user = args.raw("username");
        return {
          tweet_count: Object.values(this.tweets).filter((tweet) => tweet.username === user).length,
          following_count: user === this.username ? this.followingList.length : 0,
          retweet_count: typeof user === "string" ? (this.retweets[user] ?? []).length : 0,
        };
      },
    },
  };
}
