"""Every sentence prdigest shows, in English. zh_cn.py has the same keys and placeholders.

Keys are `area.name`; placeholders are filled by bot/words `text`, with numbers, identifiers,
quoted input or other sentences of this catalogue. Mrkdwn (`*bold*`, backquotes) only in the
Slack-only sentences (reply.*, help.*, home.*): the terminal shows the rest as written.
"""

from __future__ import annotations

WORDS: dict[str, str] = {
    # -- the card (DESIGN.md §1: the verdict labels readers know) -------------------------------
    "verdict.skip": "Skip",
    "verdict.skim": "Skim (~{n} min)",
    "verdict.read": "Read carefully (~{n} min)",
    "card.why": "Why",
    "card.caveats": "Caveats",
    "card.watch": "Watch",
    "card.coverage": "Coverage: {coverage}",
    "card.by": "by {author}",
    "card.heuristic": "summary from metadata, no model",
    # A headline that loses every word still needs one: the card's slot must not be empty.
    "card.untitled": "(untitled)",
    "card.share": "Share in channel",
    # -- coverage: what the model read ("unlisted": GitHub lists at most 3,000 files per PR) ----
    "coverage.read": "read {read} of {total} files",
    "coverage.read_single": "read its one file",
    "coverage.read_none_single": "its one file not read",
    "coverage.partly": "{n} partly",
    "coverage.skipped": "skipped {n} ({detail})",
    "coverage.reason_count": "{count} {reason}",
    "coverage.unlisted": "{n} not listed by GitHub (it lists at most 3,000)",
    "coverage.unknown": "files not read (GitHub's rate limit); judged from the title",
    "coverage.sep": "; ",
    "coverage.detail_sep": ", ",
    # Why a file was not given to the model (core/heuristic/files.py, core/prompting/context.py).
    "reason.binary": "binary file",
    "reason.lock": "lock file",
    "reason.generated": "generated file",
    "reason.vendored": "vendored",
    "reason.too_large": "no diff from GitHub (too large)",
    "reason.no_room": "did not fit the token budget",
    # -- cards without a model (cards/heuristic/cards.py) -------------------------------------------
    "heuristic.only_ci": "Only CI files changed: {paths}",
    "heuristic.only_docs": "Only docs changed: {paths}",
    "heuristic.only_tests": "Tests only, no code changed: {paths}",
    "heuristic.kind_revert": "A revert, in {paths}",
    "heuristic.only_tests_ci": "Tests and CI only, no code changed: {paths}",
    "heuristic.only_build": "Build files only: {paths}",
    "heuristic.only_wording": "Only comments, docstrings or strings changed, no code: {paths}",
    "heuristic.docs_and_wording": "Only docs, comments, docstrings or strings changed, no code: {paths}",
    "heuristic.kind_bump": "A version bump, no code changed: {paths}",
    "heuristic.kind_bump_and_code": "A version bump in {paths}, with code changes in {code}",
    "heuristic.new_kernel": "A new kernel: {path}",
    "heuristic.kind_kernel": "Kernel code changed: {paths}",
    "heuristic.kind_one_line": "A one-line change in {path}",
    "heuristic.kind_default": "Changes a setting's default in {paths}",
    "heuristic.kind_config": "A configuration change: {paths}",
    "heuristic.kind_removal": "Mostly removes code: {paths}",
    "heuristic.kind_model": "Model-specific: changes only {paths}",
    "heuristic.others": "{paths} and others",
    "heuristic.kind_data": "Data files only (configs, tables), no code: {paths}",
    "heuristic.kind_api": "Changes what users call (server, routes or options): {paths}",
    "heuristic.kind_additions": "Adds code and removes none: {paths}",
    "heuristic.most_in": "Most of the change is in {area}{size}",
    "heuristic.size": " (+{adds} -{dels})",
    "heuristic.largest": "Largest part of the change: {area}{size}",
    "heuristic.also": "Next: {area}{size}",
    # No "{count} areas": a count with its noun must be the PR's own (core/checks/claims.py, counts), and
    # areas are ours; the paths' "and N more" says how many.
    "heuristic.areas": "Cross-cutting: source changes across {paths}",
    "heuristic.adds_tests": "Adds tests: {paths}",
    "heuristic.updates_tests": "Updates tests: {paths}",
    "heuristic.new_files": "New file: {paths}",
    "heuristic.title_only": "Files not read: GitHub's rate limit ran out; verdict from the title only",
    "heuristic.permissions": "Workflow permissions changed: {paths}",
    "heuristic.no_tests": "Code changed, no test changed",
    "heuristic.deps": "Dependency versions changed: {paths}",
    "heuristic.large": "Large change: {files} files, +{adds} -{dels}",
    "heuristic.large_single": "Large change: one file, +{adds} -{dels}",
    "heuristic.binary": "Binary files changed: {count}",
    "heuristic.partial": "Only part of the diff was read",
    "heuristic.revert": "Reverts {ref}: watch for a re-land",
    "heuristic.revert_plain": "A revert: watch for a re-land",
    "heuristic.follow_up": "Follow-up likely: the title says “{word}”",
    "heuristic.more": "{paths} and {count} more",
    "heuristic.sep": ", ",
    # -- heuristic cards that read the description (cards/heuristic/cards.py, core/heuristic/signals.py) --------
    "heuristic.title_and_description": (
        "Files not read: GitHub's rate limit ran out; verdict from the title and description"
    ),
    "heuristic.headline_figure": "{title} — {figure}",
    "heuristic.table_figure": "up to {figure}",
    "heuristic.table_figure_at": "up to {figure} ({condition})",
    "heuristic.point_cause": "Root cause: {text}",
    "heuristic.point_why": "Why: {text}",
    "heuristic.point_result": "Result: {text}",
    "heuristic.point_decision": "Design: {text}",
    "heuristic.point_change": "Change: {text}",
    "heuristic.point_summary": "Summary: {text}",
    # -- the digest ---------------------------------------------------------------------------
    "digest.counts": "{merged} merged · {read} worth a careful read · {skim} to skim · {skip} to skip",
    "digest.metadata_all": "All {count} cards: summary from metadata, no model",
    "digest.metadata_single": "The card: summary from metadata, no model",
    "digest.metadata_some": "{count} of {total} cards: summary from metadata, no model",
    "digest.skip_heading": "Skip ({count}): the headline says enough",
    "digest.nothing": "No PR was merged in this window.",
    "digest.filtered": "{n} merged, none matching this channel's filters.",
    "digest.thread": "Cards and questions in the thread",
    "digest.more": "… and {n} more in the thread",
    # How a digest was made, when the reader must know (digests/build.py).
    "note.rate_limited_anonymous": (
        "GitHub's rate limit ran out: {count} of {shown} PRs were judged from their titles only. "
        "Set GITHUB_TOKEN to raise the limit from 60 to 5,000 requests an hour."
    ),
    "note.rate_limited_until": (
        "GitHub's rate limit ran out: {count} of {shown} PRs were judged from their titles only. "
        "The limit resets at {time}."
    ),
    "note.rate_limited": (
        "GitHub's rate limit ran out: {count} of {shown} PRs were judged from their titles only. "
        "The limit resets later."
    ),
    "note.unreadable": "GitHub could not give: {prs}. Their cards rest on titles.",
    "note.unreadable_pr": "#{number} ({error})",
    "note.model_degraded": "The model could not be reached for {count} of {shown} PRs: their cards come from metadata.",
    "note.budget_spent": "The daily token budget ({budget}) is spent: {count} cards from metadata.",
    "list.sep": "; ",
    "language.en": "English",
    "language.zh-CN": "Simplified Chinese",
    # -- replies in Slack ---------------------------------------------------------------------
    "status.reading": "Reading {pr}…",
    "status.digest": "Reading the digest…",
    "status.thinking": "Looking into it…",
    "reply.thinking": ":hourglass_flowing_sand: Looking into it…",
    "reply.too_long": "Your message is over Slack's limit of {limit} characters, so I did not read it.",
    "reply.choose": "Several PRs fit your question. Which one do you mean? Reply with its number:",
    "reply.not_allowed": "This channel is set up for other repositories, so I can't answer about {repo} here.",
    "reply.digest_not_allowed": "This digest's repositories can't be discussed in this channel any more.",
    "reply.not_found": "I can't find {ref} on GitHub (or I am not allowed to see it).",
    "reply.unavailable": "GitHub is not answering right now, so I can't read {ref}. Try again in a few minutes.",
    "reply.no_model": "No model is configured, so here is the card instead of an answer:",
    "reply.model_failed": "The model is not answering right now, so here is the card instead:",
    "reply.budget_spent": "Today's token budget is spent, so here is the card instead of an answer:",
    "reply.digest_none": "None of today's PRs match those words in their titles, headlines or files.",
    "reply.digest_matches": "These PRs of the digest match your question (titles, headlines, files):",
    "reply.about": "About {link}:",
    "reply.failed": "Something went wrong while answering. Please ask again in a minute.",
    "reply.stopped": "Stopped. Ask again whenever you like.",
    "reply.share_not_yours": "Only the person who asked for this card can share it. Ask for it yourself to share it.",
    "reply.try_later": "I can't keep track of requests right now. Please try again in a minute.",
    "reply.why_in": "Why {link} is in this digest:",
    "reply.why_out": "Why {link} is not in this digest:",
    # Questions across days (questions/across/days.py): {span} is one of the across_span_* phrases.
    "reply.across_span_today": "today",
    "reply.across_span_yesterday": "yesterday",
    "reply.across_span_week": "this week",
    "reply.across_span_last_week": "last week",
    "reply.across_span_days": "in the last {n} days",
    "reply.across_span_since": "since {day}",
    "reply.across_span_day": "on {day}",
    "reply.across_span_range": "from {first} to {last}",
    "reply.across_span_digest": "in the digest of {day}",
    "reply.across_span_month": "this month",
    "reply.across_span_last_month": "last month",
    "reply.across_span_digests": "in this channel's digests of {dates}",
    # A span that names no date ("this week") is said with its days: "this week (Aug 10–14)".
    "reply.across_span_dated": "{span} ({dates})",
    "dates.same_month": "{month} {first}–{last}",
    "dates.range": "{first}–{last}",
    "reply.across_reverts_found": "Reverts merged in {repo} {span}, each beside the PR it reverts:",
    "reply.across_reverts_none": (
        "No PR merged in {repo} {span} reverts another, as far as their titles, descriptions and review comments say."
    ),
    "reply.across_follow_ups_found": "Follow-ups merged in {repo} {span}, each beside the PR it follows up on:",
    "reply.across_follow_ups_none": (
        "No PR merged in {repo} {span} follows up on another, as far "
        "as their titles, descriptions and review comments say."
    ),
    # A name typed that is several authors' (questions/across/authors.py): each is listed, and said.
    "reply.across_people": "“{said}” is the name of {n} people here, so the PRs of each are listed: {people}.",
    "reply.across_person": "{name} (@{login})",
    "reply.across_unread": (
        "The display names of {n} authors could not be read, so their PRs were not matched by name. {why}"
    ),
    "reply.across_unread_later": (
        "The display names of {n} authors were not read this time, so their PRs were not matched by name; "
        "ask again to include them."
    ),
    "reply.across_found": (
        "{count} of the {merged} PRs merged in {repo} {span} match {topic} (titles, cards, labels, files):"
    ),
    "reply.across_all": "{count} PRs were merged in {repo} {span}:",
    "reply.across_none": (
        "None of the {merged} PRs merged in {repo} {span} mention {topic} in their titles, cards, labels or files."
    ),
    "reply.across_none_merged": "Nothing was merged in {repo} {span}.",
    "reply.across_revert_found": "These PRs merged in {repo} {span} revert {link}:",
    "reply.across_revert_none": (
        "No PR merged in {repo} {span} reverts {link}, as far as their titles, descriptions and review comments say."
    ),
    "reply.across_follow_up_found": "These PRs merged in {repo} {span} follow up on {link}:",
    "reply.across_follow_up_none": (
        "No PR merged in {repo} {span} follows up on {link}, as far "
        "as their titles, descriptions and review comments say."
    ),
    "reply.across_about": " about {topic}",
    "reply.across_by": " by {author}",
    "reply.across_count": "{count} PRs{by} were merged in {repo} {span}{about} (of {merged} in all).",
    "reply.across_asked_none": "No PR{by} merged in {repo} {span}{about} fits what you asked, of {merged} merged.",
    "reply.across_biggest": "The biggest PR{by} merged in {repo} {span}{about}, by lines changed:",
    "reply.across_biggest_some": "The biggest PRs{by} merged in {repo} {span}{about}, by lines changed:",
    "reply.across_verdict_read": "{count} PRs{by} merged in {repo} {span}{about} are worth a careful read:",
    "reply.across_verdict_skim": "{count} PRs{by} merged in {repo} {span}{about} are worth a skim:",
    "reply.across_verdict_skip": "{count} PRs{by} merged in {repo} {span}{about} can be skipped:",
    "reply.across_by_found": "{count} PRs{by} were merged in {repo} {span}{about}:",
    "reply.across_ambiguous": (
        '"{said}" could be {first} or {second}. Which one? '
        "Ask again with the date as YYYY-MM-DD or the month written out."
    ),
    "reply.across_reversed": (
        '"{said}" ends before it starts. Ask with the earlier day first, as in "between Aug 10 and Aug 12".'
    ),
    "reply.across_queued": "{n} of them have no card yet: they are being made now, so ask again in a few minutes.",
    "reply.across_more": "…and {n} more.",
    "reply.across_title_only": "{n} of them have no card yet, so they were matched on their titles and labels only.",
    "reply.across_no_card": "no card yet",
    "reply.across_too_long": (
        "A question may span at most {max} days, however long ago they were. Ask about fewer, "
        'such as "between Aug 4 and Aug 10", "this week" or "the last 7 days".'
    ),
    "reply.across_future": "That day has not begun yet in this channel's timezone, so nothing has merged since.",
    "reply.across_not_a_date": (
        '"{said}" is not a date. Ask since a day such as 2026-11-02 or Monday, or about "the last 7 days".'
    ),
    "reply.across_unavailable": (
        "GitHub is not answering right now, so I can't list what merged in {repo}. Try again in a few minutes."
    ),
    "reply.across_not_found": "I can't find {repo} on GitHub (or I am not allowed to see it).",
    "reply.across_no_repo": 'Which repository do you mean? Name it, as in "what merged in owner/repo this week?"',
    "reply.repo_in": "{detail} is one of this channel's repositories",
    "reply.repo_out": "this channel follows {detail}, not this repository",
    "reply.window_in": "it was merged at {detail}, inside the digest's window ({window})",
    "reply.window_out": "it was merged at {detail}, outside the digest's window ({window})",
    "reply.window_unmerged": "it is not merged",
    "reply.author_in": "its author {detail} is not among the excluded authors",
    "reply.author_out": "its author matches the excluded pattern {detail}",
    "reply.labels_include_in": "it has the label {detail}, which this channel asks for",
    "reply.labels_include_out": "it has none of the labels this channel asks for ({detail})",
    "reply.labels_exclude_out": "it has the label {detail}, which this channel leaves out",
    "reply.paths_in": "it changes {detail}",
    "reply.paths_out": "it changes no path this channel follows ({detail})",
    # What raised or lowered a heuristic card's verdict (core/heuristic/signals.py): `_in` raised it, `_out` lowered it.
    "reply.size_in": "raises its verdict: {detail} lines of code and tests changed",
    "reply.size_out": "keeps its verdict low: only {detail} lines of code and tests changed",
    "reply.unread_in": "its files could not be read, and its title does not look trivial",
    "reply.unread_out": "its files could not be read, and its title looks trivial",
    "reply.large_in": "raises its verdict: {detail} lines of source changed",
    "reply.cross_cutting_in": "raises its verdict: source changes in {detail} areas",
    "reply.tagged_in": "raises its verdict: tagged {detail}, with a fair amount of source changed",
    "reply.kernel_in": "kernel code changed ({detail}), so at least a skim",
    "reply.api_in": "it changes what users call ({detail}), so at least a skim",
    "reply.default_in": "it changes a setting's default ({detail}), so at least a skim",
    "reply.root_cause_in": "raises its verdict: its description has a root-cause section ({detail})",
    "reply.benchmark_in": "raises its verdict: its description has a benchmark table ({detail})",
    "reply.figure_in": "raises its verdict: it states a measured result ({detail})",
    "reply.design_in": "raises its verdict: its description explains its design or a decision",
    "reply.reviews_in": "raises its verdict: {detail} review comments",
    "reply.fixes_in": "raises its verdict: it says it fixes {detail}",
    "reply.cause_in": "raises its verdict: its description explains what went wrong",
    "reply.explains_in": "raises its verdict: its description explains the change and names the code",
    "reply.bot_out": "lowers its verdict: its author {detail} is a bot",
    "reply.dependencies_out": "lowers its verdict: only dependency files changed ({detail})",
    "reply.bump_out": "lowers its verdict: its title is a version bump",
    "reply.ci_only_out": "lowers its verdict: only CI files changed ({detail})",
    "reply.docs_only_out": "lowers its verdict: only docs changed ({detail})",
    "reply.wording_out": "lowers its verdict: only comments, docstrings or strings changed ({detail})",
    "reply.typo_out": "lowers its verdict: its title is about a typo",
    "reply.revert_out": "lowers its verdict: it is a revert, so at most a skim",
    "reply.no_source_out": "no source code changed, so at most a skim",
    "help.understood_topic": (
        'I understood {topic} but no day or PR: try "what merged yesterday about {example}?" '
        'or "anything on {example} this week?"'
    ),
    "help.understood_days": 'I understood {span} but not which PRs: try "what merged {span} about {example}?"',
    "help.slack": (
        "*How to use prdigest*\n"
        "• `{cmd} owner/repo#123`: a PR's card, shown only to you, with a button to share it\n"
        "• `{cmd} #123`: the same, for a repo this channel follows\n"
        "• `{cmd} <PR URL>`: the same, from a link to the PR\n"
        "• `@prdigest <question about owner/repo#123>`: an answer in a thread\n"
        "• Reply in a digest's thread to ask about its PRs, or about the digest as a whole\n"
        "• `@prdigest what merged this week about MoE?`: PRs across days (today, this week, the last 7 days, "
        "since Monday or a date), or `@prdigest did anything revert #123?`\n"
        "• The same questions in a direct message to prdigest, about the repositories of your channels\n"
        "• `{cmd} release` (or `{cmd} release owner/repo v0.12.0`): a release's PRs and what to know before "
        "upgrading; ask `@prdigest is #123 in a release?` or `what's in v0.12.0 about MoE?`\n"
        "• `{cmd} help`: this message"
    ),
    # -- the App Home -------------------------------------------------------------------------
    "home.schedule": "Daily at {time} {zone}, window {window} · {language} · last digest: {last}",
    "home.never": "no digest yet",
    "home.run": "{day}: {prs} PRs, {messages} messages, at {time} UTC",
    "home.run_problems": "{run}, {n} problem(s)",
    "home.run_problem_told": "{run}, {n} problem(s): {told}",
    "home.none_yours": "None of the channels you are in gets a digest.",
    "home.none_configured": "No channel gets a digest yet: add one under `[[channels]]`.",
    "home.more": "… and {n} more channels",
    "home.tokens": "Model tokens spent for this channel: today {today} · last 7 days {week}",
    "home.tokens_cost": "{tokens} (≈ {cost})",
    "home.tokens_no_price": "{tokens} (no price configured)",
    "home.tokens_repo": "{repo}: {today} today, {week} in 7 days (every channel)",
    # -- what may not be posted where (access/policy.py) ----------------------------------------
    "refusal.not_configured": "{repo} is private and {channel} is not configured for it in the config file",
    "refusal.shared": "{repo} is private and {channel} is shared with another organisation",
    # The same, in a channel shared with another organisation, to someone who did not name the
    # repository (access/disclosure.py): its name stays out, "repo.private" stands for it.
    "refusal.not_configured_unnamed": "a private repository is not configured for {channel} in the config file",
    "refusal.shared_unnamed": (
        "a private repository can't be shown in {channel}: it is shared with another organisation"
    ),
    "refusal.not_followable_unnamed": (
        "a private repository followed in {channel} from Slack is no longer in [slack] followable_private_repos"
    ),
    "repo.private": "a private repository",
    # -- errors a person meets (bot/errors.py); `text` values arrive quoted (errors.quoted) ----
    "error.ref_no_repo": "{text} does not say which repository; write owner/repo#{digits}",
    "error.ref_which_repo": "{text} does not say which repository the config means; write one of {refs}",
    "error.post_not_a_channel": "--post: {text} is not a Slack channel id (it looks like C0123456789)",
    "error.not_a_ref": (
        "{text} is not a pull request reference; use owner/repo#123, #123 or https://github.com/owner/repo/pull/123"
    ),
    "error.not_a_number": (
        "{text}: {digits} is not a pull request number; "
        "use owner/repo#123, #123 or https://github.com/owner/repo/pull/123"
    ),
    "error.not_a_repo": "{text} is not a repository; use owner/name such as vllm-project/vllm",
    "error.since_not_duration": "--since: {text} is not a duration; use minutes, hours or days such as 90m, 24h or 7d",
    "error.since_too_long": "--since: {text} is longer than a year; use at most 365d",
    "error.date_not_date": "--date: {text} is not a date; use YYYY-MM-DD such as 2026-08-05",
    "error.date_too_early": "--date: {day} is before GitHub had pull requests; use a day from 2008 on",
    "error.date_not_started": "--date: {day} has not started yet in {zone}",
    "error.github_not_found": "{what}: not found on GitHub (or the token cannot see it)",
    "error.github_refused": "{what}: GitHub refused the request ({status}); check GITHUB_TOKEN",
    "error.github_status": "{what}: GitHub answered {status}",
    "error.github_app_refused": (
        "{what}: GitHub refused the GitHub App's installation token ({status}); "
        "check the App's permissions (Contents, Pull requests and Metadata: read)"
    ),
    "error.github_app_not_installed": (
        "{repo}: the GitHub App is not installed on this repository; install it there, "
        "or set GITHUB_TOKEN for the repositories it is not on"
    ),
    "error.github_app_key": (
        "GitHub refused the GitHub App's token: the private key is not App {app}'s (GITHUB_APP_ID); "
        "use the key generated on that App's settings page"
    ),
    "error.github_app_clock": (
        "GitHub refused the GitHub App's token as expired or not yet valid: "
        "this host's clock is off; set it right (NTP)"
    ),
    "error.github_app_app": "GitHub knows no App {app}: check GITHUB_APP_ID (the App ID on the App's settings page)",
    "error.github_app_installed_nowhere": (
        "the GitHub App is not installed anywhere yet: install it on the repositories it should read"
    ),
    "error.github_not_api": (
        "GITHUB_API_URL answered with a web page, not GitHub's API; for GitHub Enterprise use {suggested}"
    ),
    "error.github_unreachable": "{what}: cannot reach GitHub at {url} ({error})",
    "error.rate_limited_until": "GitHub's rate limit is used up until {time}.",
    "error.rate_limited_until_anonymous": (
        "GitHub's rate limit is used up until {time}. "
        "Set GITHUB_TOKEN to raise the limit from 60 to 5,000 requests an hour."
    ),
    "error.rate_limited": "GitHub's rate limit is used up; try again later.",
    "error.rate_limited_anonymous": (
        "GitHub's rate limit is used up; try again later. "
        "Set GITHUB_TOKEN to raise the limit from 60 to 5,000 requests an hour."
    ),
    "error.cache_unusable": "the cache file cannot be used ({error})",
    "error.queue_unreachable": "The card queue (RabbitMQ) cannot be reached ({error})",
    "error.redis_unreachable": "Redis cannot be reached ({error})",
    "error.slack_unreachable": "Slack could not be reached ({error})",
    "error.slack_answered": "Slack answered {error}",
    "error.slack_needs_scope": "Slack answered {error} (it needs the {needed} scope)",
    "error.slack_refused": "Slack refused a message in {channel} ({error}): {hint}",
    "error.lease_lost": "stopped posting in {channel}: the posting lease was lost",
    "error.shutting_down": "stopped posting in {channel}: shutting down",
    "error.nothing_to_post": "nothing to post in {channel}: {reasons}",
    "error.not_posted_refused": "{reasons}: nothing posted",
    "error.not_posted_store": (
        "{error}: nothing was posted, since the ledger that keeps a digest from being posted twice is there; "
        "run it again when Redis answers"
    ),
    # An error raised with an operator's or an internal message: the logs have its detail.
    "error.internal": "something went wrong (the logs say what)",
    # What to do about a message Slack refused (digests/publisher.py), by Slack's error name.
    "slack_hint.not_in_channel": "invite the bot to the channel first (/invite @prdigest)",
    "slack_hint.channel_not_found": "check the channel id in config/prdigest.toml",
    "slack_hint.invalid_auth": "check SLACK_BOT_TOKEN",
    "slack_hint.not_authed": "set SLACK_BOT_TOKEN",
    "slack_hint.ratelimited": "Slack kept rate-limiting; the next run finishes the thread",
    "slack_hint.other": "the next run finishes what is missing",
    # -- the terminal (bot/cli/main.py, bot/cli/waiting.py); the CLI puts "prdigest: " before each ------
    "cli.progress": "{done}/{total} cards",
    "cli.waiting": "waiting for the model at {host} (up to {seconds} s)…",
    "cli.waiting_each": "waiting for the model at {host} (up to {seconds} s a card)…",
    "cli.model_failed_one": "the model at {host} gave no card: it is from metadata (--debug says why)",
    "cli.model_failed": (
        "the model at {host} gave no card for {failed} of {total} PRs: their cards are from metadata (--debug says why)"
    ),
    "cli.posted": "{channel} {day}: {posted} messages posted, {already} already there",
    "cli.posting_elsewhere": "another process is posting the {day} digest in {channel}; nothing posted",
    "cli.config_file": "config file {path}",
    "following.none": (
        "No channel follows a repository yet: add a [[channels]] table to the config file, "
        "or type `{cmd} follow owner/repo` in a Slack channel."
    ),
    "cli.github_unreachable": (
        "{error}; offline, try the README's “{section}”: they serve a GitHub on this machine, "
        "and GITHUB_API_URL points there"
    ),
    "cli.no_config_file": "no config file at {path} (PRDIGEST_CONFIG names one): built-in defaults",
    "cli.serving": "serving {url}",
    "cli.serving_metrics": "serving metrics at {url}",
    "error.metrics_port_is_slack_port": "--metrics-port {port} is --port too; give the metrics a port of their own",
    "cli.working": "making cards from the shared queue, {threads} at a time (Ctrl-C or SIGTERM stops)",
    "error.eval_not_json": "{file} line {line}: not a JSON object (one labelled PR or question per line)",
    "error.eval_unknown_field": "{file} line {line}: unknown field {field}; the fields are {fields}",
    "error.eval_bad_ref": "{file} line {line}: {ref} is not a PR reference; write owner/repo#123",
    "error.eval_bad_verdict": "{file} line {line}: verdict {verdict} is not skip, skim or read",
    "error.eval_bad_field": "{file} line {line}: field '{field}' is missing or not what eval/README.md describes",
    "error.eval_empty": "{file} holds no labelled line",
    "error.eval_unreadable": "cannot read {file}",
    "error.eval_not_a_file": "{file} is not a regular file (a FIFO, a device or a directory is not read)",
    "error.eval_line_too_long": "{file} line {line}: longer than {limit} bytes; a labelled line is one JSON object",
    "error.eval_not_utf8": "{file} line {line}: not UTF-8 text",
    "error.eval_too_deep": "{file} line {line}: JSON nested too deeply; a labelled line is one flat JSON object",
    "error.eval_invented": (
        "{count} invented figures reached a card (listed above): a card must state only what its PR states"
    ),
    "error.eval_nothing": "name at least one FILE of labelled PRs, or --answers FILE",
    "error.eval_no_key": "--model needs OPENAI_API_KEY: the models are asked at the configured endpoint",
    "error.eval_concurrency": "--concurrency {value} is not a number of cards at once; use 1 to 64",
    "error.bad_threads": "--threads {threads} is not a number of cards at once; use 1 to 64",
    "cli.interrupted": "interrupted",
    # Ctrl-C in a terminal command (bot/ops/stopping.py): how far the run got, and what it kept.
    "cli.stopped": "stopped",
    "cli.stopped_kept": "stopped: {done} of {total} cards were done and are kept",
    "cli.stopped_done": "stopped: {done} of {total} cards were done; an in-memory store keeps none of them",
    # -- `prdigest ask` (bot/cli/commands.py): an answer, or the card and one line saying why -------
    "ask.files_cited": "Files cited:",
    "ask.no_model": "questions need a model (set OPENAI_API_KEY): here is the card instead",
    "ask.budget_spent": "today's token budget ([defaults] daily_token_budget) is spent: here is the card instead",
    "ask.no_answer": "the model at {host} gave no answer ({reason}): here is the card instead",
    "ask.model_timeout": "it took longer than {seconds} s",
    "ask.model_unavailable": "it cannot be reached or is busy",
    "ask.model_refused": "it refused the request; check OPENAI_API_KEY and the model name",
    "ask.model_failed": "its reply was empty, cut off or declined; --debug says more",
    "ask.answer_unusable": (
        "nothing of it was left without mentions, outside links, chat-template tokens and our own instructions"
    ),
    "ask.answer_not_prose": "it wrote JSON or a card's fields, not an answer in words",
    "error.ask_not_across": (
        "{repo} names no PR: ask about a span of days, such as "
        '"what merged this week about MoE?" or "did anything revert #123?", or name a PR as owner/repo#123'
    ),
    "error.empty_question": (
        'the question is empty; write it after the PR, such as: prdigest ask owner/repo#123 "what changed?"'
    ),
    # -- answers a model gave but that could not be used (questions/qa.py, core/checks/templates.py) -----
    "reply.answer_unusable": "The model's answer was not usable, so here is the card instead:",
    # What GitHub's file list states of a PR, as a card says it: the faithfulness check accepts
    # a card's count of files when it matches (cards/writer.py file_facts, for
    # core/checks/faithfulness.py). Never shown.
    "fact.files": "{n} files",
    # -- channel subscriptions from Slack (channels/subscriptions.py, slack/listeners/subscribe.py)
    "subs.usage_follow": "Name the repositories to follow: `{cmd} follow owner/repo [owner/repo…]`",
    "subs.usage_unfollow": "Name the repository to stop following: `{cmd} unfollow owner/repo`",
    "subs.followed": (
        "This channel now follows {repos}. Its digest comes daily at {time} ({zone}); `{cmd} settings` changes that."
    ),
    "subs.already": "This channel already follows {repos}.",
    "subs.unfollowed": "This channel no longer follows {repo}.",
    "subs.unfollowed_last": (
        "This channel no longer follows {repo}. It follows no repository now, so no more digests here."
    ),
    "subs.not_following": "This channel does not follow {repo}.",
    "subs.bad_repo": "{value} is not a repository; write owner/name such as acme/widgets",
    "subs.bad_no_repos": "List at least one repository (owner/name).",
    "subs.bad_post_at": "{value} is not a time of day; use HH:MM such as 09:30",
    "subs.bad_timezone": "{value} is not a time zone; use an IANA name such as Europe/Paris",
    "subs.bad_language": "{value} is not a language the digest is written in; choose English or Simplified Chinese",
    "subs.bad_quiet_days": "{value} is not a choice here; choose a short note or nothing",
    "subs.bad_globs_many": "List at most {limit} patterns here.",
    "subs.bad_glob_empty": "An empty pattern matches nothing; remove it.",
    "subs.bad_glob_long": "{value} is too long: a pattern holds at most {limit} characters.",
    "subs.bad_glob_wildcards": "{value} has too many wildcards: a pattern holds at most {wildcards} (* or ?).",
    "subs.bad_glob_space": "{value} holds a control character; a pattern is plain text.",
    "subs.bad_value": "{value} cannot be used here",
    "subs.bad_channel": "This conversation cannot get a digest; use a channel.",
    "subs.too_many": "A channel follows at most {limit} repositories.",
    "subs.workspace_repos": (
        "This workspace already follows {limit} different repositories, the most it may follow from Slack "
        "(`[slack] workspace_max_repos`). Unfollow one in some channel first, or ask the bot's operator."
    ),
    "subs.workspace_channels": (
        "{limit} channels of this workspace already follow repositories, the most it may set up from Slack "
        "(`[slack] workspace_max_channels`). Unfollow everything in one of them first, or ask the bot's operator."
    ),
    "subs.private": (
        "{repo} is private (or GitHub does not let the bot see it), and the config file does not list it "
        "in `[slack] followable_private_repos`, so it can't be followed from Slack: the bot reads GitHub "
        "with its operator's token. Ask them to list it there."
    ),
    "subs.refused_file": (
        "This channel is set up in the config file ({path}), so its subscriptions can't be changed from Slack. "
        "Edit the file, or ask its operator to set `[slack] allow_channel_edits = true`."
    ),
    "subs.refused_editor": (
        "Only the people listed in `[slack] editors` of the config file may change what a channel follows."
    ),
    "subs.refused_member": "Only members of this channel may change what it follows.",
    "subs.last_file_repo": (
        "This channel's last repository comes from the config file: remove the channel there to stop its digest."
    ),
    "subs.invite_first": (
        "I am not a member of this channel, so I can't post its digest. "
        "Invite me first with `/invite @prdigest`, then try again."
    ),
    "subs.busy": "Someone else is changing this channel's subscriptions right now. Please try again.",
    "subs.store_down": "I can't reach my store right now, so nothing was changed. Please try again in a minute.",
    "subs.none": "This channel follows no repository. `{cmd} follow owner/repo` starts a daily digest here.",
    "subs.title": "*What this channel follows*",
    "subs.line": "• {field}: {value} _({source})_",
    "subs.last_run": "• Last digest: {last}",
    "subs.last_change": "Last change: {change}",
    "subs.change": "{action} by {user}, {time} UTC",
    "subs.action_follow": "followed {detail}",
    "subs.action_unfollow": "unfollowed {detail}",
    "subs.action_settings": "changed the settings ({detail})",
    "subs.field_repos": "Repositories",
    "subs.field_post_at": "Posting time",
    "subs.field_timezone": "Time zone",
    "subs.field_language": "Digest language",
    "subs.field_quiet_days": "On days without merged PRs",
    "subs.field_labels_include": "Only PRs with these labels",
    "subs.field_labels_exclude": "Leave out PRs with these labels",
    "subs.field_paths": "Only PRs that change these paths",
    "subs.field_exclude_authors": "Leave out PRs by",
    "subs.field_window": "Window covered",
    "subs.empty": "(none)",
    "subs.quiet_note": "a short note",
    "subs.quiet_silent": "no message",
    "subs.source_file": "from the config file",
    "subs.source_slack": "set in Slack",
    "subs.source_default": "the default",
    "subs.modal_title": "Channel settings",
    "subs.modal_save": "Save",
    "subs.modal_cancel": "Cancel",
    "subs.modal_intro": "What {channel} follows. A blank field takes the config file's value or the default.",
    "subs.hint_repos": "One owner/repo per line",
    "subs.hint_list": "Separated by commas",
    "subs.hint_timezone": "An IANA name such as Europe/Paris",
    "subs.settings_shared": (
        "This channel is shared with another organisation and follows a private repository, so its settings "
        "form is not shown here: it would name that repository. `{cmd} follow` and `{cmd} unfollow` still work."
    ),
    "subs.saved_daily": (
        "Saved. From the next check (within a minute) this channel's digest comes daily at {time} ({zone})."
    ),
    "subs.saved_weekly": (
        "Saved. From the next check (within a minute) this channel's weekly roll-up comes on {day} at {time} ({zone})."
    ),
    "subs.saved_both": (
        "Saved. From the next check (within a minute) this channel's digest comes daily at {time} ({zone}),"
        " and its weekly roll-up on {day}."
    ),
    "subs.digest_posted": "The digest for {day} is posted in this channel.",
    "subs.digest_already": "The digest for {day} is already here: {link}. The next one comes at {next}.",
    "subs.digest_busy": "The digest for {day} is being posted right now.",
    "subs.digest_failed": "The digest for {day} could not be posted: {reason}",
    "subs.next": "{time} ({zone}) on {day}",
    "subs.help": (
        "*Following repositories*\n"
        "• `{cmd} follow owner/repo`: a daily digest of its merged PRs in this channel\n"
        "• `{cmd} unfollow owner/repo` · `{cmd} following`: stop, or see what this channel follows\n"
        "• `{cmd} settings`: time, time zone, language and filters\n"
        "• `{cmd} digest`: the last finished day's digest, if it is not posted yet\n"
        "• `{cmd} feedback reset`: forget this channel's Useful / Not for us clicks"
    ),
    "home.settings": "Settings",
    "home.changed": "Last change: {change}",
    "refusal.not_followable": (
        "{repo} is private and was followed in {channel} from Slack, but the config file no longer lists it "
        "in [slack] followable_private_repos"
    ),
    # -- workspaces in OAuth mode (slack/app.py, bot/cli/commands.py `--team`) ---------------------
    "oauth.not_installed": "prdigest is no longer installed in this workspace. Ask an admin to add it to Slack again.",
    "oauth.install_busy": "Too many installs were started just now. Try again in {seconds} seconds.",
    "error.team_needed": "the app is installed in several workspaces (OAuth mode): name this one with --team T…",
    "error.team_not_oauth": "--team is for OAuth mode (SLACK_CLIENT_ID); with SLACK_BOT_TOKEN there is one workspace",
    "error.bad_team": "{team} is not a Slack team id; it looks like T0123456789",
    "error.not_installed": "workspace {team} has not installed prdigest (or has removed it): nothing was posted",
    # -- links across days (render/slack/links.py): a card's earlier digest, the lead's reverts, replies --
    "links.months": "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec",
    "links.date": "{month} {day}",
    "links.follow_up": "Follow-up to {pr}, in this channel's digest of {day}",
    "links.revert": "Reverts {pr}, in this channel's digest of {day}",
    "links.fixes": "Fixes {pr}, in this channel's digest of {day}",
    "links.lead_revert": "{earlier} from this channel's digest of {day} is reverted by {pr}",
    "links.reply_follow_up": "Follow-up merged: {pr}",
    "links.reply_revert": "Reverted by {pr}",
    "links.reply_fixes": "Fix merged: {pr}",
    # -- follow-ups revisited (render/slack/followups.py): the earlier card's follow-up a PR answers ----
    "watch.answers": "Answers a follow-up of {pr} (merged {day}): “{point}”",
    # -- feedback that tunes tomorrow (issue 13: the buttons, "why is this here", the reset) --
    "feedback.up": "Useful",
    "feedback.down": "Not for us",
    "feedback.up_label": "Useful: rank PRs like this one higher in this channel",
    "feedback.down_label": "Not for us: rank PRs like this one lower in this channel",
    "reply.feedback_in": "ranked up: this channel marked {n} `{area}` PRs useful",
    "reply.feedback_out": "ranked down: this channel marked {n} `{area}` PRs not for us",
    "feedback.reset_done": (
        "This channel's feedback is cleared: from the next digest, cards are ordered as if nobody had clicked."
    ),
    "feedback.usage": "Usage: {cmd} feedback reset (clears this channel's Useful / Not for us feedback)",
    "feedback.not_kept": "Your feedback could not be kept just now. Please click again in a minute.",
    "feedback.refused_editor": (
        "Only the people listed in `[slack] editors` of the config file may clear a channel's feedback."
    ),
    "feedback.refused_member": "Only members of this channel may clear its feedback.",
    # -- personal watches (issue 13: /pr watch, /pr unwatch, the daily DM) ----------------------
    "watch.help": (
        "*Watching for yourself*\n"
        "• `{cmd} watch owner/repo path/glob` · `{cmd} watch owner/repo#123`: one DM a day, 09:00 your time, "
        "with the merged PRs that match\n"
        "• `{cmd} watch list` · `{cmd} unwatch PATTERN` · `{cmd} unwatch all`"
    ),
    "watch.usage": (
        "Usage: `{cmd} watch owner/repo path/glob` (merged PRs that change those paths), "
        "`{cmd} watch owner/repo#123` (that PR, and PRs that revert, follow up or fix it), or `{cmd} watch list`"
    ),
    "watch.usage_unwatch": (
        "Usage: `{cmd} unwatch owner/repo path/glob`, `{cmd} unwatch owner/repo#123`, "
        "`{cmd} unwatch path/glob` or `{cmd} unwatch all`"
    ),
    "watch.bad_glob_empty": "Name the paths to watch with a glob such as vllm/attention/** or *.md",
    "watch.bad_glob_long": "A path glob to watch holds at most {limit} characters.",
    "watch.bad_glob_space": "A path glob to watch is one word, without spaces or control characters.",
    "watch.bad_glob_wildcards": "A path glob to watch holds at most {wildcards} wildcards (* or ?).",
    "watch.off": "Personal watches are not available in this workspace.",
    "watch.already": "You already watch {watch}. `{cmd} watch list` shows your watches.",
    "watch.too_many": "You already have {limit} watches, the most one person may keep. `{cmd} unwatch …` makes room.",
    "watch.not_visible": (
        "I can't watch {repo}: it does not exist, or it is private and you are not in a channel that follows it."
    ),
    "watch.added": (
        "Watching {watch}. On days when merged PRs match, you get one DM at 09:00 ({zone}) with their cards. "
        "`{cmd} watch list` shows your watches."
    ),
    "watch.none": (
        "You watch nothing yet. `{cmd} watch owner/repo path/glob` or `{cmd} watch owner/repo#123` starts a watch."
    ),
    "watch.list_title": "*Your watches ({n})*",
    "watch.list_hint": "`{cmd} unwatch …` stops one; `{cmd} unwatch all` stops them all.",
    "watch.unknown": "You have no watch called {pattern}. `{cmd} watch list` shows what you watch.",
    "watch.removed": "Stopped watching {watches}.",
    "watch.matched": "Matches your watch {watches}",
    "watch.dm_intro": "Your watches matched {n} PR(s) merged in the 24 hours before 09:00 on {day}",
    "watch.dm_more": "… and {n} more that do not fit in this message:",
    # -- the Messages tab: suggested prompts and direct questions (issue 15) -------------------
    "dm.prompts_title": "Ask me about merged PRs",
    "dm.lookup_title": "Look up a pull request",
    "dm.prompt_digest_title": "Today's digest",
    "dm.prompt_digest": "What should I read from today's digest?",
    "dm.prompt_area_title": "This week in {area}",
    "dm.prompt_area": "What changed in `{area}` this week?",
    "dm.prompt_explain_title": "Explain {ref}",
    "dm.prompt_explain": "Explain {ref}",
    "dm.prompt_lookup_title": "How to look up a PR",
    "dm.prompt_lookup": "How do I look up a pull request?",
    "reply.dm_not_allowed": (
        "I answer here only about the repositories followed by channels you are in, so not about that one."
    ),
    "reply.dm_which_repo": "Which repository is #{number} in? Ask again with its name, such as {examples}.",
    "reply.dm_which_repo_none": (
        "#{number} does not say which repository. Ask again with its name, such as `owner/repo#{number}`."
    ),
    # -- releases (releases/ranges.py, render/releases.py) --------------------------------
    "error.not_a_tag": "{text} is not a tag; give one such as v0.12.0",
    "error.release_none": "{repo} has published no release yet",
    "error.release_first": "{tag} is the first release of {repo}; say where it starts with --since TAG",
    "error.release_unknown": "{repo} has no release {tag}; give a tag it has, with --since TAG if it is not a release",
    "error.release_range_unknown": "{repo}: GitHub knows no range {base}...{tag}; check both tags",
    "release.title": "{repo} {tag} (since {base})",
    "release.empty": "No merged pull request between these tags.",
    "release.unnamed": "{n} commits of the range came in without a pull request and are not listed.",
    "release.unnamed_one": "1 commit of the range came in without a pull request and is not listed.",
    "release.upgrade": "Before you upgrade",
    "release.area": "{area} ({n})",
    "release.skips": "  To skip ({n}):",
    "release.kind.breaking": "Breaking",
    "release.kind.removed": "Removed",
    "release.kind.default": "New default",
    "release.kind.deprecated": "Deprecated",
    "release.kind.migration": "Migration",
    "release.usage": "Say `release`, then a repository, a tag, or both, such as `release vllm-project/vllm v0.12.0`",
    "release.which_repo": "Which repository? Say `release owner/repo`, or `release owner/repo TAG`",
    "release.unavailable": "GitHub could not give the release of {repo} just now; try again in a minute",
    # -- the weekly roll-up (render/slack/weekly.py) ----------------------------------------------------
    "weekly.title": "{repos} · the week of {first} to {last}",
    "weekly.must_reads": "Worth a careful read",
    "weekly.more": "… and {n} more",
    "weekly.areas": "By area:",
    "weekly.reverts": "Reverted this week",
    "weekly.answered": "Follow-ups answered this week",
    "weekly.thread": "Ask about any of the week's PRs in the thread",
    "reply.across_span_release": "in {release}",
    "reply.across_span_releases": "in the range {first}...{last}",
    "reply.across_release_unknown": "{repo} has no release {said}; ask about one of its tags, such as the latest",
    "reply.in_release": "{pr} shipped in {tag}, published {day}.",
    "reply.not_released": "{pr} is not in a release yet: the latest is {latest}.",
    "reply.no_releases": "{repo} has published no release yet, so {pr} is in none.",
    "subs.field_cadence": "How often",
    "subs.field_weekly_on": "Weekly roll-up on",
    "subs.field_releases": "New releases",
    "subs.cadence_daily": "a digest every day",
    "subs.cadence_weekly": "a roll-up once a week",
    "subs.cadence_both": "both",
    "subs.weekday_mon": "Monday",
    "subs.weekday_tue": "Tuesday",
    "subs.weekday_wed": "Wednesday",
    "subs.weekday_thu": "Thursday",
    "subs.weekday_fri": "Friday",
    "subs.weekday_sat": "Saturday",
    "subs.weekday_sun": "Sunday",
    "subs.releases_off": "not posted",
    "subs.releases_post": "posted here, with their cards",
    "cli.release_posted": "release posted to {channel}: {posted} messages now, {already} already there",
    "cli.release_posting_elsewhere": "another process is posting this release to {channel} right now",
    "cli.release_posted_before": "{repo} {tag} was posted to {channel} before: {link}",
    "cli.release_posted_before_unlinked": "{repo} {tag} was posted to {channel} before (message {ts})",
}

# Where English says a count of 1 otherwise ("1 of them has", not "1 of them have"): by the key of
# the sentence for every other count, the placeholder that counts, and the sentence for 1, with the
# same placeholders (bot/words `text` picks it). Chinese has no plural forms: zh_cn.py has none.
ONE: dict[str, tuple[str, str]] = {
    "note.rate_limited_anonymous": (
        "count",
        "GitHub's rate limit ran out: {count} of {shown} PRs was judged from its title only. "
        "Set GITHUB_TOKEN to raise the limit from 60 to 5,000 requests an hour.",
    ),
    "note.rate_limited_until": (
        "count",
        "GitHub's rate limit ran out: {count} of {shown} PRs was judged from its title only. "
        "The limit resets at {time}.",
    ),
    "note.rate_limited": (
        "count",
        "GitHub's rate limit ran out: {count} of {shown} PRs was judged from its title only. The limit resets later.",
    ),
    "note.model_degraded": (
        "count",
        "The model could not be reached for {count} of {shown} PRs: its card comes from metadata.",
    ),
    "note.budget_spent": ("count", "The daily token budget ({budget}) is spent: {count} card from metadata."),
    "reply.across_span_days": ("n", "in the last day"),
    "reply.across_unread": (
        "n",
        "The display name of {n} author could not be read, so their PRs were not matched by name. {why}",
    ),
    "reply.across_unread_later": (
        "n",
        "The display name of {n} author was not read this time, so their PRs were not matched by name; "
        "ask again to include them.",
    ),
    "reply.across_found": (
        "count",
        "{count} of the {merged} PRs merged in {repo} {span} matches {topic} (titles, cards, labels, files):",
    ),
    "reply.across_all": ("count", "{count} PR was merged in {repo} {span}:"),
    "reply.across_none": (
        "merged",
        "The {merged} PR merged in {repo} {span} does not mention {topic} in its title, card, labels or files.",
    ),
    "reply.across_count": ("count", "{count} PR{by} was merged in {repo} {span}{about} (of {merged} in all)."),
    "reply.across_verdict_read": ("count", "{count} PR{by} merged in {repo} {span}{about} is worth a careful read:"),
    "reply.across_verdict_skim": ("count", "{count} PR{by} merged in {repo} {span}{about} is worth a skim:"),
    "reply.across_verdict_skip": ("count", "{count} PR{by} merged in {repo} {span}{about} can be skipped:"),
    "reply.across_by_found": ("count", "{count} PR{by} was merged in {repo} {span}{about}:"),
    "reply.across_queued": (
        "n",
        "{n} of them has no card yet: it is being made now, so ask again in a few minutes.",
    ),
    "reply.across_title_only": ("n", "{n} of them has no card yet, so it was matched on its title and labels only."),
    "home.more": ("n", "… and {n} more channel"),
    "cli.model_failed": (
        "failed",
        "the model at {host} gave no card for {failed} of {total} PRs: its card is from metadata (--debug says why)",
    ),
    "error.eval_invented": (
        "count",
        "{count} invented figure reached a card (listed above): a card must state only what its PR states",
    ),
    "cli.stopped_kept": ("done", "stopped: {done} of {total} cards was done and is kept"),
    "cli.stopped_done": ("done", "stopped: {done} of {total} cards was done; an in-memory store does not keep it"),
    "reply.feedback_in": ("n", "ranked up: this channel marked {n} `{area}` PR useful"),
    "reply.feedback_out": ("n", "ranked down: this channel marked {n} `{area}` PR not for us"),
    "cli.posted": ("posted", "{channel} {day}: {posted} message posted, {already} already there"),
    "cli.release_posted": ("posted", "release posted to {channel}: {posted} message now, {already} already there"),
}
