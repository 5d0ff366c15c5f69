"""Every sentence prdigest shows, in Simplified Chinese: the keys and placeholders of en.py.

Written for engineers who read Chinese, not word for word from the English: short, with the
terms they use (PR、diff、token、CI) left as they are. Full-width punctuation around Chinese text.
"""

from __future__ import annotations

WORDS: dict[str, str] = {
    # -- the card (DESIGN.md §1: the verdict labels readers know) -------------------------------
    "verdict.skip": "无需精读",
    "verdict.skim": "快速浏览（约 {n} 分钟）",
    "verdict.read": "值得精读（约 {n} 分钟）",
    "card.why": "看点",
    "card.caveats": "注意",
    "card.watch": "关注",
    "card.coverage": "覆盖：{coverage}",
    "card.by": "作者 {author}",
    "card.heuristic": "依据元数据生成，未使用模型",
    "card.untitled": "（无标题）",
    "card.share": "分享到频道",
    # -- coverage ------------------------------------------------------------------------------
    "coverage.read": "已读 {read}/{total} 个文件",
    "coverage.read_single": "已读唯一的文件",
    "coverage.read_none_single": "唯一的文件未读",
    "coverage.partly": "其中 {n} 个部分读取",
    "coverage.skipped": "跳过 {n} 个（{detail}）",
    "coverage.reason_count": "{reason} {count} 个",
    "coverage.unlisted": "GitHub 未列出 {n} 个（最多列出 3,000 个）",
    "coverage.unknown": "未能读取文件（GitHub 速率限制），仅依据标题判断",
    "coverage.sep": "；",
    "coverage.detail_sep": "、",
    "reason.binary": "二进制文件",
    "reason.lock": "锁文件",
    "reason.generated": "生成文件",
    "reason.vendored": "第三方代码",
    "reason.too_large": "GitHub 未提供 diff（过大）",
    "reason.no_room": "超出 token 预算",
    # -- cards without a model -----------------------------------------------------------------
    "heuristic.only_ci": "只改了 CI 配置：{paths}",
    "heuristic.only_docs": "只改了文档：{paths}",
    "heuristic.only_tests": "只改了测试，没有改代码：{paths}",
    "heuristic.kind_revert": "回退提交，涉及 {paths}",
    "heuristic.only_tests_ci": "只改了测试和 CI，没有改代码：{paths}",
    "heuristic.only_build": "只改了构建文件：{paths}",
    "heuristic.kind_bump": "版本升级，没有改代码：{paths}",
    "heuristic.kind_bump_and_code": "版本升级（{paths}），同时改了代码：{code}",
    "heuristic.new_kernel": "新增内核：{path}",
    "heuristic.kind_kernel": "改动了内核代码：{paths}",
    "heuristic.kind_one_line": "只改了一行：{path}",
    "heuristic.kind_default": "修改了配置默认值：{paths}",
    "heuristic.kind_config": "配置改动：{paths}",
    "heuristic.kind_removal": "以删除代码为主：{paths}",
    "heuristic.kind_model": "仅涉及模型代码：{paths}",
    "heuristic.others": "{paths} 等",
    "heuristic.most_in": "改动主要集中在 {area}{size}",
    "heuristic.size": "（+{adds} -{dels}）",
    "heuristic.largest": "改动最多的部分：{area}{size}",
    "heuristic.also": "其次是 {area}{size}",
    "heuristic.areas": "跨模块改动：源码改动分布在 {paths}",
    "heuristic.adds_tests": "新增测试：{paths}",
    "heuristic.updates_tests": "更新了测试：{paths}",
    "heuristic.new_files": "新增文件：{paths}",
    "heuristic.title_only": "未读取文件：GitHub 速率限制已用完，结论仅依据标题",
    "heuristic.permissions": "工作流权限有改动：{paths}",
    "heuristic.no_tests": "改了代码，但没有改测试",
    "heuristic.deps": "依赖版本有改动：{paths}",
    "heuristic.large": "改动较大：{files} 个文件，+{adds} -{dels}",
    "heuristic.large_single": "改动较大：单个文件，+{adds} -{dels}",
    "heuristic.binary": "包含二进制文件改动：{count} 个",
    "heuristic.partial": "只读取了部分 diff",
    "heuristic.revert": "回滚了 {ref}：留意之后是否重新合入",
    "heuristic.revert_plain": "这是一次回滚：留意之后是否重新合入",
    "heuristic.follow_up": "可能还有后续：标题写着“{word}”",
    "heuristic.more": "{paths} 及其他 {count} 个",
    "heuristic.sep": "、",
    # -- 读取描述的启发式卡片 ---------------------------------------------------------------------
    "heuristic.title_and_description": "未读取文件：GitHub 速率限制已用完，结论依据标题和描述",
    "heuristic.headline_figure": "{title}：{figure}",
    "heuristic.table_figure": "最高 {figure}",
    "heuristic.table_figure_at": "最高 {figure}（{condition}）",
    "heuristic.point_cause": "根因：{text}",
    "heuristic.point_why": "原因：{text}",
    "heuristic.point_result": "效果：{text}",
    "heuristic.point_decision": "设计：{text}",
    "heuristic.point_change": "改动：{text}",
    "heuristic.point_summary": "概述：{text}",
    # -- the digest ----------------------------------------------------------------------------
    "digest.counts": "合并 {merged} 个 · 值得精读 {read} · 快速浏览 {skim} · 无需精读 {skip}",
    "digest.metadata_all": "全部 {count} 张卡片：依据元数据生成，未使用模型",
    "digest.metadata_single": "这张卡片：依据元数据生成，未使用模型",
    "digest.metadata_some": "{total} 张卡片中有 {count} 张：依据元数据生成，未使用模型",
    "digest.skip_heading": "无需精读（{count}）：标题已说明一切",
    "digest.nothing": "该时间段内没有合并的 PR。",
    "digest.filtered": "合并 {n} 个，均不符合本频道的筛选条件。",
    "digest.thread": "卡片与问答见讨论串",
    "digest.more": "… 另有 {n} 个见讨论串",
    "note.rate_limited_anonymous": (
        "GitHub 速率限制已用完：{shown} 个 PR 中有 {count} 个仅依据标题判断。"
        "设置 GITHUB_TOKEN 可将上限从每小时 60 次提高到 5,000 次。"
    ),
    "note.rate_limited_until": (
        "GitHub 速率限制已用完：{shown} 个 PR 中有 {count} 个仅依据标题判断。限额将于 {time} 重置。"
    ),
    "note.rate_limited": "GitHub 速率限制已用完：{shown} 个 PR 中有 {count} 个仅依据标题判断。限额稍后重置。",
    "note.unreadable": "GitHub 未能返回：{prs}。这些 PR 的卡片仅依据标题生成。",
    "note.unreadable_pr": "#{number}（{error}）",
    "note.model_degraded": "{shown} 个 PR 中有 {count} 个未能连上模型，卡片改由元数据生成。",
    "note.budget_spent": "今日的 token 预算（{budget}）已用完：{count} 张卡片改由元数据生成。",
    "list.sep": "；",
    "language.en": "英文",
    "language.zh-CN": "简体中文",
    # -- replies in Slack ----------------------------------------------------------------------
    "status.reading": "正在阅读 {pr}…",
    "status.digest": "正在阅读摘要…",
    "status.thinking": "正在查看…",
    "reply.thinking": ":hourglass_flowing_sand: 正在查看…",
    "reply.too_long": "你的消息超过了 Slack 的 {limit} 字符上限，我没有读取。请用更短的话再问。",
    "reply.choose": "有几个 PR 都符合你的问题，你指的是哪一个？请回复编号：",
    "reply.not_allowed": "本频道只回答为它配置的仓库，无法在这里回答关于 {repo} 的问题。",
    "reply.digest_not_allowed": "这期摘要的仓库已不能在本频道讨论，因此无法在这里回答。",
    "reply.not_found": "在 GitHub 上找不到 {ref}（或者我没有权限查看）。",
    "reply.unavailable": "GitHub 暂时没有响应，无法读取 {ref}。请几分钟后再试。",
    "reply.no_model": "没有配置模型，以下是这个 PR 的卡片：",
    "reply.model_failed": "模型暂时没有响应，以下是这个 PR 的卡片：",
    "reply.budget_spent": "今日的 token 预算已用完，以下是这个 PR 的卡片，而不是回答：",
    "reply.digest_none": "今天的 PR 中没有标题、摘要或文件与这些词匹配的。",
    "reply.digest_matches": "摘要中与你的问题相关的 PR（按标题、摘要、文件匹配）：",
    "reply.about": "关于 {link}：",
    "reply.failed": "回答时出了问题，请稍后再问一次。",
    "reply.stopped": "已停止。随时可以再问。",
    "reply.share_not_yours": "只有请求这张卡片的人才能分享它。请自己运行该命令后再分享。",
    "reply.try_later": "暂时无法记录请求，请一分钟后再试。",
    "reply.why_in": "{link} 出现在本期摘要中的原因：",
    "reply.why_out": "{link} 没有出现在本期摘要中的原因：",
    # 跨天提问（services/across.py）：{span} 是 across_span_* 之一。
    "reply.across_span_today": "今天",
    "reply.across_span_yesterday": "昨天",
    "reply.across_span_week": "本周",
    "reply.across_span_last_week": "上周",
    "reply.across_span_days": "最近 {n} 天",
    "reply.across_span_since": "自 {day} 以来",
    "reply.across_span_day": "{day}",
    "reply.across_span_range": "{first} 至 {last}",
    "reply.across_span_digest": "在 {day} 的摘要中",
    "reply.across_span_month": "本月",
    "reply.across_span_last_month": "上个月",
    "reply.across_found": (
        "{repo} {span}合并的 {merged} 个 PR 中，有 {count} 个与 {topic} 相关（按标题、卡片、标签、文件匹配）："
    ),
    "reply.across_all": "{repo} {span}合并了 {count} 个 PR：",
    "reply.across_none": "{repo} {span}合并的 {merged} 个 PR 中，没有标题、卡片、标签或文件提到 {topic} 的。",
    "reply.across_none_merged": "{repo} {span}没有合并任何 PR。",
    "reply.across_revert_found": "{repo} {span}合并的这些 PR 回滚了 {link}：",
    "reply.across_revert_none": "从标题、描述和评审意见看，{repo} {span}合并的 PR 中没有回滚 {link} 的。",
    "reply.across_follow_up_found": "{repo} {span}合并的这些 PR 是 {link} 的后续：",
    "reply.across_follow_up_none": "从标题、描述和评审意见看，{repo} {span}合并的 PR 中没有 {link} 的后续。",
    "reply.across_about": "（与 {topic} 相关）",
    "reply.across_by": " {author} 的",
    "reply.across_count": "{repo} {span}合并了 {count} 个{by} PR{about}（共合并 {merged} 个）。",
    "reply.across_asked_none": "{repo} {span}合并的 {merged} 个 PR 中，没有符合你所问的{by} PR{about}。",
    "reply.across_biggest": "{repo} {span}合并的{by} PR 中改动最大的{about}（按改动行数）：",
    "reply.across_biggest_some": "{repo} {span}合并的{by} PR 中改动最大的几个{about}（按改动行数）：",
    "reply.across_verdict_read": "{repo} {span}合并的{by} PR 中有 {count} 个值得细读{about}：",
    "reply.across_verdict_skim": "{repo} {span}合并的{by} PR 中有 {count} 个值得略读{about}：",
    "reply.across_verdict_skip": "{repo} {span}合并的{by} PR 中有 {count} 个可以跳过{about}：",
    "reply.across_by_found": "{repo} {span}合并了 {count} 个{by} PR{about}：",
    "reply.across_ambiguous": (
        "“{said}”既可能是 {first}，也可能是 {second}。你指的是哪一天？请用 YYYY-MM-DD 的写法再问一次。"
    ),
    "reply.across_reversed": "“{said}”的结束日期早于开始日期。请把较早的日期放在前面，例如“从8月10日到8月12日”。",
    "reply.across_queued": "其中 {n} 个还没有卡片，正在生成，请过几分钟再问。",
    "reply.across_more": "……还有 {n} 个。",
    "reply.across_title_only": "其中 {n} 个还没有卡片，只按标题和标签匹配。",
    "reply.across_no_card": "暂无卡片",
    "reply.across_too_long": (
        "一个问题最多覆盖 {max} 天（多久以前都可以）。请问短一些的时间段，例如“8月4日到8月10日”、“本周”或“最近 7 天”。"
    ),
    "reply.across_future": "按本频道的时区，那一天还没有开始，因此还没有合并任何 PR。",
    "reply.across_not_a_date": "“{said}”不是一个日期。请写成 2026-11-02 这样的日期、星期几，或“最近 7 天”。",
    "reply.across_unavailable": "GitHub 暂时没有响应，无法列出 {repo} 合并的 PR，请过几分钟再试。",
    "reply.across_not_found": "在 GitHub 上找不到 {repo}（或者我没有权限查看）。",
    "reply.across_no_repo": "你问的是哪个仓库？请写明，例如“owner/repo 本周合并了什么？”",
    "reply.repo_in": "{detail} 是本频道关注的仓库",
    "reply.repo_out": "本频道关注的是 {detail}，不是这个仓库",
    "reply.window_in": "它合并于 {detail}，在摘要的时间窗口内（{window}）",
    "reply.window_out": "它合并于 {detail}，不在摘要的时间窗口内（{window}）",
    "reply.window_unmerged": "它还没有合并",
    "reply.author_in": "作者 {detail} 不在排除名单中",
    "reply.author_out": "作者符合排除规则 {detail}",
    "reply.labels_include_in": "它带有本频道要求的标签 {detail}",
    "reply.labels_include_out": "它没有本频道要求的任何标签（{detail}）",
    "reply.labels_exclude_out": "它带有本频道排除的标签 {detail}",
    "reply.paths_in": "它改动了 {detail}",
    "reply.paths_out": "它没有改动本频道关注的路径（{detail}）",
    # 启发式卡片评级的依据（core/signals.py）：`_in` 提高了评级，`_out` 降低了评级。
    "reply.size_in": "提高了评级：改动了 {detail} 行代码和测试",
    "reply.size_out": "评级偏低：只改动了 {detail} 行代码和测试",
    "reply.unread_in": "未能读取文件，标题看起来不是琐碎改动",
    "reply.unread_out": "未能读取文件，标题看起来是琐碎改动",
    "reply.large_in": "提高了评级：改动了 {detail} 行源码",
    "reply.cross_cutting_in": "提高了评级：源码改动涉及 {detail} 个目录",
    "reply.tagged_in": "提高了评级：标签为 {detail}，且改动了较多源码",
    "reply.root_cause_in": "提高了评级：描述中有根因分析（{detail}）",
    "reply.benchmark_in": "提高了评级：描述中有基准测试表格（{detail}）",
    "reply.figure_in": "提高了评级：给出了实测结果（{detail}）",
    "reply.design_in": "提高了评级：描述解释了设计或取舍",
    "reply.reviews_in": "提高了评级：有 {detail} 条评审意见",
    "reply.fixes_in": "提高了评级：说明修复了 {detail}",
    "reply.cause_in": "提高了评级：描述解释了问题的原因",
    "reply.explains_in": "提高了评级：描述解释了改动并点出了相关代码",
    "reply.bot_out": "降低了评级：作者 {detail} 是机器人",
    "reply.dependencies_out": "降低了评级：只改了依赖文件（{detail}）",
    "reply.bump_out": "降低了评级：标题是版本升级",
    "reply.ci_only_out": "降低了评级：只改了 CI 文件（{detail}）",
    "reply.docs_only_out": "降低了评级：只改了文档（{detail}）",
    "reply.typo_out": "降低了评级：标题说的是修正拼写错误",
    "reply.revert_out": "降低了评级：这是一次回滚，最多快速浏览",
    "reply.no_source_out": "没有改动源码，最多快速浏览",
    "help.understood_topic": (
        "我读懂了 {topic}，但没有读出日期或 PR："
        "试试“昨天合并了哪些关于 {example} 的 PR？”或“本周有 {example} 相关的改动吗？”"
    ),
    "help.understood_days": "我读懂了“{span}”，但不知道你问的是哪些 PR：试试“{span}合并了哪些关于 {example} 的 PR？”",
    "help.slack": (
        "*prdigest 使用方法*\n"
        "• `{cmd} owner/repo#123`：查看 PR 的卡片（仅你可见），可一键分享到频道\n"
        "• `{cmd} #123`：同上，用于本频道关注的仓库\n"
        "• `{cmd} <PR URL>`：同上，使用 PR 链接\n"
        "• `@prdigest <关于 owner/repo#123 的问题>`：在讨论串中回答\n"
        "• 在每日摘要的讨论串中回复，即可询问其中的 PR 或整份摘要\n"
        "• `@prdigest 本周关于 MoE 的 PR 有哪些？`：跨天查询（今天、本周、最近 7 天、自周一或某个日期以来），"
        "或 `@prdigest #123 被回滚了吗？`\n"
        "• 也可以私信 prdigest 提同样的问题，范围是你所在频道关注的仓库\n"
        "• `{cmd} help`：显示本说明"
    ),
    # -- the App Home --------------------------------------------------------------------------
    "home.schedule": "每天 {time}（{zone}）发送，时间窗口 {window} · {language} · 上次摘要：{last}",
    "home.never": "尚无摘要",
    "home.run": "{day}：{prs} 个 PR，{messages} 条消息，{time} UTC 完成",
    "home.run_problems": "{run}，{n} 个问题",
    "home.run_problem_told": "{run}，{n} 个问题：{told}",
    "home.tokens": "本频道消耗的模型 token：今天 {today} · 近 7 天 {week}",
    "home.tokens_cost": "{tokens}（约 {cost}）",
    "home.tokens_no_price": "{tokens}（未配置价格）",
    "home.tokens_repo": "{repo}：今天 {today}，近 7 天 {week}（所有频道）",
    "home.none_yours": "你所在的频道都没有配置每日摘要。",
    "home.none_configured": "还没有频道配置每日摘要：请在 `[[channels]]` 下添加。",
    "home.more": "… 另有 {n} 个频道",
    # -- what may not be posted where ------------------------------------------------------------
    "refusal.not_configured": "{repo} 是私有仓库，配置文件没有为 {channel} 配置它",
    "refusal.shared": "{repo} 是私有仓库，而 {channel} 已与其他组织共享",
    "refusal.not_configured_unnamed": "配置文件没有为 {channel} 配置某个私有仓库",
    "refusal.shared_unnamed": "某个私有仓库不能在 {channel} 中显示：该频道已与其他组织共享",
    "refusal.not_followable_unnamed": (
        "某个在 Slack 中被 {channel} 关注的私有仓库已不在 [slack] followable_private_repos 中"
    ),
    "repo.private": "某个私有仓库",
    # -- errors a person meets ---------------------------------------------------------------------
    "error.ref_no_repo": "{text} 没有指明仓库，请写成 owner/repo#{digits}",
    "error.not_a_ref": "{text} 不是 PR 引用，请使用 owner/repo#123、#123 或 https://github.com/owner/repo/pull/123",
    "error.not_a_number": (
        "{text}：{digits} 不是有效的 PR 编号，请使用 owner/repo#123、#123 或 https://github.com/owner/repo/pull/123"
    ),
    "error.not_a_repo": "{text} 不是仓库名，请使用 owner/name 格式，例如 vllm-project/vllm",
    "error.since_not_duration": "--since：{text} 不是有效的时长，请用分钟、小时或天表示，例如 90m、24h 或 7d",
    "error.since_too_long": "--since：{text} 超过一年，最多 365d",
    "error.date_not_date": "--date：{text} 不是日期，请使用 YYYY-MM-DD 格式，例如 2026-08-05",
    "error.date_too_early": "--date：{day} 早于 GitHub 有 PR 的时间，请使用 2008 年及以后的日期",
    "error.date_not_started": "--date：{day} 在 {zone} 时区还没有开始",
    "error.github_not_found": "{what}：在 GitHub 上找不到（或令牌无权查看）",
    "error.github_refused": "{what}：GitHub 拒绝了请求（{status}），请检查 GITHUB_TOKEN",
    "error.github_status": "{what}：GitHub 返回了 {status}",
    "error.github_unreachable": "{what}：无法连接 GitHub（{url}，{error}）",
    "error.rate_limited_until": "GitHub 速率限制已用完，{time} 重置。",
    "error.rate_limited_until_anonymous": (
        "GitHub 速率限制已用完，{time} 重置。设置 GITHUB_TOKEN 可将上限从每小时 60 次提高到 5,000 次。"
    ),
    "error.rate_limited": "GitHub 速率限制已用完，请稍后再试。",
    "error.rate_limited_anonymous": (
        "GitHub 速率限制已用完，请稍后再试。设置 GITHUB_TOKEN 可将上限从每小时 60 次提高到 5,000 次。"
    ),
    "error.redis_unreachable": "无法连接 Redis（{error}）",
    "error.slack_unreachable": "无法连接 Slack（{error}）",
    "error.slack_answered": "Slack 返回错误 {error}",
    "error.slack_needs_scope": "Slack 返回错误 {error}（需要 {needed} 权限）",
    "error.slack_refused": "Slack 拒绝了 {channel} 中的一条消息（{error}）：{hint}",
    "error.lease_lost": "已停止在 {channel} 发布：发布租约已丢失",
    "error.shutting_down": "已停止在 {channel} 发布：进程正在关闭",
    "error.nothing_to_post": "{channel} 没有可发布的内容：{reasons}",
    "error.not_posted_refused": "{reasons}：未发布任何内容",
    "error.not_posted_store": "{error}：未发布任何内容，因为防止摘要重复发布的记录在 Redis 中；请等 Redis 恢复后再运行",
    "error.internal": "出了点问题（详情见日志）",
    "slack_hint.not_in_channel": "请先邀请机器人加入频道（/invite @prdigest）",
    "slack_hint.channel_not_found": "请检查 config/prdigest.toml 中的频道 ID",
    "slack_hint.invalid_auth": "请检查 SLACK_BOT_TOKEN",
    "slack_hint.not_authed": "请设置 SLACK_BOT_TOKEN",
    "slack_hint.ratelimited": "Slack 持续限流，下次运行会补发讨论串中缺少的消息",
    "slack_hint.other": "下次运行会补发缺少的内容",
    # -- the terminal --------------------------------------------------------------------------
    "cli.progress": "{done}/{total} 张卡片",
    "cli.waiting": "正在等待模型 {host}（最长 {seconds} 秒）…",
    "cli.waiting_each": "正在等待模型 {host}（每张卡片最长 {seconds} 秒）…",
    "cli.model_failed_one": "模型 {host} 没有生成卡片，已改用元数据生成（--debug 可查看原因）",
    "cli.model_failed": (
        "模型 {host} 在 {total} 个 PR 中有 {failed} 个没有生成卡片，已改用元数据生成（--debug 可查看原因）"
    ),
    "cli.posted": "{channel} {day}：发布了 {posted} 条消息，{already} 条已存在",
    "cli.posting_elsewhere": "另一个进程正在 {channel} 发布 {day} 的摘要，本次未发布",
    "cli.serving": "已在 {url} 提供服务",
    "cli.serving_metrics": "已在 {url} 提供指标",
    "error.metrics_port_is_slack_port": "--metrics-port {port} 与 --port 相同；请给指标另用一个端口",
    "cli.working": "正在从共享队列生成卡片，每次 {threads} 张（Ctrl-C 或 SIGTERM 停止）",
    "error.eval_not_json": "{file} 第 {line} 行：不是 JSON 对象（每行一个标注的 PR 或问题）",
    "error.eval_unknown_field": "{file} 第 {line} 行：未知字段 {field}；可用字段为 {fields}",
    "error.eval_bad_ref": "{file} 第 {line} 行：{ref} 不是 PR 引用，请写 owner/repo#123",
    "error.eval_bad_verdict": "{file} 第 {line} 行：结论 {verdict} 不是 skip、skim 或 read",
    "error.eval_bad_field": "{file} 第 {line} 行：字段 '{field}' 缺失或不符合 eval/README.md 的说明",
    "error.eval_empty": "{file} 中没有标注行",
    "error.eval_unreadable": "无法读取 {file}",
    "error.eval_invented": "有 {count} 个编造的数字进入了卡片（见上文）：卡片只能陈述 PR 中写明的内容",
    "error.eval_nothing": "请至少给出一个标注 PR 的 FILE，或 --answers FILE",
    "error.eval_no_key": "--model 需要 OPENAI_API_KEY：模型在配置的端点上调用",
    "error.eval_concurrency": "--concurrency {value} 不是同时生成的卡片数；请用 1 到 64",
    "error.bad_threads": "--threads {threads} 不是同时生成的卡片数；请用 1 到 64",
    "cli.interrupted": "已中断",
    # -- `prdigest ask`（bot/commands.py）：回答，或者卡片加一行原因 ---------------------------
    "ask.files_cited": "引用的文件：",
    "ask.no_model": "回答问题需要模型（请设置 OPENAI_API_KEY），以下是这个 PR 的卡片",
    "ask.budget_spent": "今日的 token 预算（[defaults] daily_token_budget）已用完，以下是这个 PR 的卡片",
    "ask.no_answer": "模型 {host} 没有给出回答（{reason}），以下是这个 PR 的卡片",
    "ask.model_timeout": "超过 {seconds} 秒",
    "ask.model_unavailable": "无法连接或正忙",
    "ask.model_refused": "请求被拒绝，请检查 OPENAI_API_KEY 和模型名称",
    "ask.model_failed": "回复为空、被截断或被拒答，--debug 可查看详情",
    "ask.answer_unusable": "去掉提及、外部链接、对话模板标记和复述的指令后没有剩下任何内容",
    "error.ask_not_across": (
        "{repo} 没有指明 PR：请问一段时间内的问题，例如“本周合并了哪些关于 MoE 的 PR？”"
        "或“有没有 PR 回滚了 #123？”，或者用 owner/repo#123 指明一个 PR"
    ),
    "error.empty_question": '问题为空，请写在 PR 之后，例如：prdigest ask owner/repo#123 "改了什么？"',
    # -- answers a model gave but that could not be used (services/qa.py, core/templates.py) -----
    "reply.answer_unusable": "模型的回答无法使用，以下是这个 PR 的卡片：",
    "fact.files": "{n} 个文件",
    # -- channel subscriptions from Slack (services/subscriptions.py, slack/listeners/subscribe.py)
    "subs.usage_follow": "请写出要关注的仓库：`{cmd} follow owner/repo [owner/repo…]`",
    "subs.usage_unfollow": "请写出要取消关注的仓库：`{cmd} unfollow owner/repo`",
    "subs.followed": "本频道已关注 {repos}。每天 {time}（{zone}）发送摘要；可用 `{cmd} settings` 修改。",
    "subs.already": "本频道已经关注了 {repos}。",
    "subs.unfollowed": "本频道已取消关注 {repo}。",
    "subs.unfollowed_last": "本频道已取消关注 {repo}。现在没有关注任何仓库，不再发送摘要。",
    "subs.not_following": "本频道没有关注 {repo}。",
    "subs.bad_repo": "{value} 不是仓库名；请写成 owner/name，例如 acme/widgets",
    "subs.bad_no_repos": "请至少填写一个仓库（owner/name）。",
    "subs.bad_post_at": "{value} 不是时间；请用 HH:MM 格式，例如 09:30",
    "subs.bad_timezone": "{value} 不是时区；请用 IANA 时区名，例如 Asia/Shanghai",
    "subs.bad_language": "{value} 不是摘要支持的语言；请选择英语或简体中文",
    "subs.bad_quiet_days": "{value} 不是可选项；请选择发送简短说明或不发送",
    "subs.bad_globs_many": "这里最多填写 {limit} 个模式。",
    "subs.bad_glob_empty": "空模式匹配不到任何内容，请删除。",
    "subs.bad_glob_long": "{value} 太长：一个模式最多 {limit} 个字符。",
    "subs.bad_glob_wildcards": "{value} 的通配符太多：一个模式最多含 {wildcards} 个通配符（* 或 ?）。",
    "subs.bad_glob_space": "{value} 含有控制字符；模式只能是普通文本。",
    "subs.bad_value": "{value} 在这里无法使用",
    "subs.bad_channel": "这个会话无法接收摘要；请在频道中使用。",
    "subs.too_many": "一个频道最多关注 {limit} 个仓库。",
    "subs.workspace_repos": (
        "本工作区已关注 {limit} 个不同的仓库，这是在 Slack 中可关注的上限（`[slack] workspace_max_repos`）。"
        "请先在某个频道取消关注一个仓库，或联系机器人的运维人员。"
    ),
    "subs.workspace_channels": (
        "本工作区已有 {limit} 个频道关注了仓库，这是在 Slack 中可设置的上限（`[slack] workspace_max_channels`）。"
        "请先让其中一个频道取消全部关注，或联系机器人的运维人员。"
    ),
    "subs.private": (
        "{repo} 是私有仓库（或机器人无权在 GitHub 上查看），且配置文件的 `[slack] followable_private_repos` "
        "中没有列出它，因此不能在 Slack 中关注：机器人使用运维人员的令牌读取 GitHub。请让运维人员把它加入该列表。"
    ),
    "subs.refused_file": (
        "本频道由配置文件（{path}）设置，不能在 Slack 中修改其关注。"
        "请编辑该文件，或让运维人员设置 `[slack] allow_channel_edits = true`。"
    ),
    "subs.refused_editor": "只有配置文件 `[slack] editors` 中列出的人可以修改频道的关注。",
    "subs.refused_member": "只有本频道的成员可以修改它的关注。",
    "subs.last_file_repo": "本频道的最后一个仓库来自配置文件：如需停止摘要，请在文件中删除该频道。",
    "subs.invite_first": "我还不是本频道的成员，无法发送摘要。请先用 `/invite @prdigest` 邀请我，然后再试一次。",
    "subs.busy": "有人正在修改本频道的关注，请稍后再试。",
    "subs.store_down": "暂时无法连接存储，没有做任何修改。请一分钟后再试。",
    "subs.none": "本频道没有关注任何仓库。使用 `{cmd} follow owner/repo` 即可在这里开始每日摘要。",
    "subs.title": "*本频道的关注*",
    "subs.line": "• {field}：{value} _（{source}）_",
    "subs.last_run": "• 上次摘要：{last}",
    "subs.last_change": "最近修改：{change}",
    "subs.change": "{user} {action}，{time} UTC",
    "subs.action_follow": "关注了 {detail}",
    "subs.action_unfollow": "取消关注 {detail}",
    "subs.action_settings": "修改了设置（{detail}）",
    "subs.field_repos": "仓库",
    "subs.field_post_at": "时间",
    "subs.field_timezone": "时区",
    "subs.field_language": "语言",
    "subs.field_quiet_days": "没有合并 PR 的日子",
    "subs.field_labels_include": "只看带这些标签的 PR",
    "subs.field_labels_exclude": "不看带这些标签的 PR",
    "subs.field_paths": "只看改动这些路径的 PR",
    "subs.field_exclude_authors": "不看这些作者的 PR",
    "subs.field_window": "时间窗口",
    "subs.empty": "无",
    "subs.quiet_note": "发送简短说明",
    "subs.quiet_silent": "不发送",
    "subs.source_file": "来自配置文件",
    "subs.source_slack": "在 Slack 中设置",
    "subs.source_default": "默认值",
    "subs.modal_title": "频道设置",
    "subs.modal_save": "保存",
    "subs.modal_cancel": "取消",
    "subs.modal_intro": "{channel} 的关注设置。留空的项使用配置文件中的值或默认值。",
    "subs.hint_repos": "每行一个 owner/repo",
    "subs.hint_list": "用逗号分隔",
    "subs.hint_timezone": "IANA 时区名，例如 Asia/Shanghai",
    "subs.settings_shared": (
        "此频道已与其他组织共享，并关注了某个私有仓库，因此这里不显示它的设置表单（表单会写出该仓库的名称）。"
        "`{cmd} follow` 和 `{cmd} unfollow` 仍然可用。"
    ),
    "subs.saved": "已保存。从下一次检查起（一分钟内），本频道每天 {time}（{zone}）发送摘要。",
    "subs.digest_posted": "{day} 的摘要已发送到本频道。",
    "subs.digest_already": "{day} 的摘要已经在这里：{link}。下一份将在 {next} 发送。",
    "subs.digest_busy": "{day} 的摘要正在发送中。",
    "subs.digest_failed": "{day} 的摘要未能发送：{reason}",
    "subs.next": "{day} {time}（{zone}）",
    "subs.help": (
        "*关注仓库*\n"
        "• `{cmd} follow owner/repo`：在本频道接收它每天合并的 PR 摘要\n"
        "• `{cmd} unfollow owner/repo` · `{cmd} following`：取消关注，或查看本频道关注了什么\n"
        "• `{cmd} settings`：时间、时区、语言和筛选条件\n"
        "• `{cmd} digest`：如果最近一天的摘要还没发送，现在发送\n"
        "• `{cmd} feedback reset`：清除本频道的“有用 / 与我们无关”反馈"
    ),
    "home.settings": "设置",
    "home.changed": "最近修改：{change}",
    "refusal.not_followable": (
        "{repo} 是私有仓库，曾在 Slack 中被 {channel} 关注，但配置文件的 [slack] followable_private_repos 已不再列出它"
    ),
    # -- workspaces in OAuth mode (slack/app.py, bot/commands.py `--team`) ---------------------
    "oauth.not_installed": "此工作区已不再安装 prdigest。请联系管理员重新将它添加到 Slack。",
    "oauth.install_busy": "刚才开始的安装太多了，请在 {seconds} 秒后重试。",
    "error.team_needed": "应用已安装在多个工作区（OAuth 模式）：请用 --team T… 指明是哪一个",
    "error.team_not_oauth": "--team 仅用于 OAuth 模式（SLACK_CLIENT_ID）；使用 SLACK_BOT_TOKEN 时只有一个工作区",
    "error.bad_team": "{team} 不是 Slack 工作区 ID；它形如 T0123456789",
    "error.not_installed": "工作区 {team} 没有安装 prdigest（或已将其移除）：未发布任何内容",
    # -- 跨日链接（render/links.py）：卡片所指的早前摘要、摘要首条中的回滚、早前话题中的回复 --
    "links.months": "1月 2月 3月 4月 5月 6月 7月 8月 9月 10月 11月 12月",
    "links.date": "{month}{day}日",
    "links.follow_up": "是 {pr} 的后续，见本频道 {day} 的摘要",
    "links.revert": "回滚了 {pr}，见本频道 {day} 的摘要",
    "links.fixes": "修复了 {pr} 引入的问题，见本频道 {day} 的摘要",
    "links.lead_revert": "本频道 {day} 摘要中的 {earlier} 已被 {pr} 回滚",
    "links.reply_follow_up": "后续已合并：{pr}",
    "links.reply_revert": "已被 {pr} 回滚",
    "links.reply_fixes": "修复已合并：{pr}",
    # -- 待关注项的回应（render/followups.py）：本 PR 回应了早前卡片的哪一条待关注项 --
    "watch.answers": "回应了 {pr}（{day}合并）卡片中的待关注项：“{point}”",
    # -- 反馈调整排序（issue 13：按钮、“为什么在这里”、清除） --------------------------------
    "feedback.up": "有用",
    "feedback.down": "与我们无关",
    "feedback.up_label": "有用：在本频道中把类似的 PR 排得更靠前",
    "feedback.down_label": "与我们无关：在本频道中把类似的 PR 排得更靠后",
    "reply.feedback_in": "排序提前：本频道把 {n} 个 `{area}` 的 PR 标为有用",
    "reply.feedback_out": "排序靠后：本频道把 {n} 个 `{area}` 的 PR 标为与我们无关",
    "feedback.reset_done": "本频道的反馈已清除：从下一期摘要起，卡片按无人点击时的顺序排列。",
    "feedback.usage": "用法：{cmd} feedback reset（清除本频道的“有用 / 与我们无关”反馈）",
    "feedback.not_kept": "暂时无法保存你的反馈，请一分钟后再点一次。",
    "feedback.refused_editor": "只有配置文件 `[slack] editors` 中列出的人可以清除频道的反馈。",
    "feedback.refused_member": "只有本频道的成员可以清除它的反馈。",
    # -- 个人关注（issue 13：/pr watch、/pr unwatch、每日私信） ----------------------------------
    "watch.help": (
        "*个人关注*\n"
        "• `{cmd} watch owner/repo path/glob` · `{cmd} watch owner/repo#123`："
        "每天在你的时区 09:00 私信匹配的已合并 PR\n"
        "• `{cmd} watch list` · `{cmd} unwatch PATTERN` · `{cmd} unwatch all`"
    ),
    "watch.usage": (
        "用法：`{cmd} watch owner/repo path/glob`（改动这些路径的已合并 PR）、"
        "`{cmd} watch owner/repo#123`（该 PR，以及回滚、跟进或修复它的 PR），或 `{cmd} watch list`"
    ),
    "watch.usage_unwatch": (
        "用法：`{cmd} unwatch owner/repo path/glob`、`{cmd} unwatch owner/repo#123`、"
        "`{cmd} unwatch path/glob` 或 `{cmd} unwatch all`"
    ),
    "watch.bad_glob_empty": "请用路径通配符指明要关注的路径，例如 vllm/attention/** 或 *.md",
    "watch.bad_glob_long": "要关注的路径通配符最多 {limit} 个字符。",
    "watch.bad_glob_space": "要关注的路径通配符须是一个词，不能含空格或控制字符。",
    "watch.bad_glob_wildcards": "要关注的路径通配符最多含 {wildcards} 个通配符（* 或 ?）。",
    "watch.off": "此工作区不提供个人关注。",
    "watch.already": "你已经关注了 {watch}。`{cmd} watch list` 可查看你的关注。",
    "watch.too_many": "你已有 {limit} 项关注，已达每人上限。可用 `{cmd} unwatch …` 腾出空间。",
    "watch.not_visible": "无法关注 {repo}：它不存在，或是私有仓库而你不在关注它的频道中。",
    "watch.added": (
        "已关注 {watch}。有已合并的 PR 匹配的日子，你会在 09:00（{zone}）收到一条附带卡片的私信。"
        "`{cmd} watch list` 可查看你的关注。"
    ),
    "watch.none": "你还没有任何关注。用 `{cmd} watch owner/repo path/glob` 或 `{cmd} watch owner/repo#123` 开始关注。",
    "watch.list_title": "*你的关注（{n}）*",
    "watch.list_hint": "`{cmd} unwatch …` 取消一项；`{cmd} unwatch all` 全部取消。",
    "watch.unknown": "你没有名为 {pattern} 的关注。`{cmd} watch list` 可查看你关注了什么。",
    "watch.removed": "已取消关注 {watches}。",
    "watch.matched": "匹配你的关注 {watches}",
    "watch.dm_intro": "你的关注匹配了 {day} 09:00 之前 24 小时内合并的 {n} 个 PR",
    "watch.dm_more": "… 另有 {n} 个放不下，链接如下：",
    # -- 消息标签页：建议的问题与私信提问（issue 15）-----------------------------------------
    "dm.prompts_title": "问我已合并的 PR",
    "dm.lookup_title": "查询拉取请求",
    "dm.prompt_digest_title": "今天的摘要",
    "dm.prompt_digest": "今天的摘要里我该读哪些？",
    "dm.prompt_area_title": "本周的 {area}",
    "dm.prompt_area": "本周 `{area}` 有哪些变化？",
    "dm.prompt_explain_title": "解释 {ref}",
    "dm.prompt_explain": "解释 {ref}",
    "dm.prompt_lookup_title": "如何查询 PR",
    "dm.prompt_lookup": "如何查询一个拉取请求？",
    "reply.dm_not_allowed": "这里只回答你所在频道关注的仓库，所以无法回答关于那个仓库的问题。",
    "reply.dm_which_repo": "#{number} 是哪个仓库的？请带上仓库名再问一次，例如 {examples}。",
    "reply.dm_which_repo_none": "#{number} 没有说明是哪个仓库。请带上仓库名再问一次，例如 `owner/repo#{number}`。",
    # -- 版本发布 --------------------------------------------------------------------------------
    "error.not_a_tag": "{text} 不是标签；请给出如 v0.12.0 这样的标签",
    "error.release_none": "{repo} 还没有发布过版本",
    "error.release_first": "{tag} 是 {repo} 的第一个版本；请用 --since TAG 指定起点",
    "error.release_unknown": "{repo} 没有版本 {tag}；请给出它有的标签，若不是正式版本请加 --since TAG",
    "error.release_range_unknown": "{repo}：GitHub 找不到范围 {base}...{tag}；请检查两个标签",
    "release.title": "{repo} {tag}（自 {base} 起）",
    "release.empty": "这两个标签之间没有合并的 PR。",
    "release.unnamed": "范围内有 {n} 个提交不是经由 PR 合入的，未列出。",
    "release.unnamed_one": "范围内有 1 个提交不是经由 PR 合入的，未列出。",
    "release.upgrade": "升级前须知",
    "release.area": "{area}（{n}）",
    "release.skips": "  无需精读（{n}）：",
    "release.kind.breaking": "不兼容变更",
    "release.kind.removed": "已移除",
    "release.kind.default": "默认值变化",
    "release.kind.deprecated": "已弃用",
    "release.kind.migration": "需要迁移",
}
