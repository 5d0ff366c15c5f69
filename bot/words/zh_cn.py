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
    "heuristic.binary": "包含二进制文件改动：{count} 个",
    "heuristic.partial": "只读取了部分 diff",
    "heuristic.revert": "回滚了 {ref}：留意之后是否重新合入",
    "heuristic.revert_plain": "这是一次回滚：留意之后是否重新合入",
    "heuristic.follow_up": "可能还有后续：标题写着“{word}”",
    "heuristic.more": "{paths} 及其他 {count} 个",
    "heuristic.sep": "、",
    # -- the digest ----------------------------------------------------------------------------
    "digest.counts": "合并 {merged} 个 · 值得精读 {read} · 快速浏览 {skim} · 无需精读 {skip}",
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
    "list.sep": "；",
    "language.en": "英文",
    "language.zh-CN": "简体中文",
    # -- replies in Slack ----------------------------------------------------------------------
    "reply.thinking": ":hourglass_flowing_sand: 正在查看…",
    "reply.too_long": "你的消息超过了 Slack 的 {limit} 字符上限，我没有读取。请用更短的话再问。",
    "reply.choose": "有几个 PR 都符合你的问题，你指的是哪一个？请回复编号：",
    "reply.not_allowed": "本频道只回答为它配置的仓库，无法在这里回答关于 {repo} 的问题。",
    "reply.digest_not_allowed": "这期摘要的仓库已不能在本频道讨论，因此无法在这里回答。",
    "reply.not_found": "在 GitHub 上找不到 {ref}（或者我没有权限查看）。",
    "reply.unavailable": "GitHub 暂时没有响应，无法读取 {ref}。请几分钟后再试。",
    "reply.no_model": "没有配置模型，以下是这个 PR 的卡片：",
    "reply.model_failed": "模型暂时没有响应，以下是这个 PR 的卡片：",
    "reply.digest_none": "今天的 PR 中没有标题、摘要或文件与这些词匹配的。",
    "reply.digest_matches": "摘要中与你的问题相关的 PR（按标题、摘要、文件匹配）：",
    "reply.about": "关于 {link}：",
    "reply.failed": "回答时出了问题，请稍后再问一次。",
    "reply.share_not_yours": "只有请求这张卡片的人才能分享它。请自己运行该命令后再分享。",
    "reply.try_later": "暂时无法记录请求，请一分钟后再试。",
    "reply.why_in": "{link} 出现在本期摘要中的原因：",
    "reply.why_out": "{link} 没有出现在本期摘要中的原因：",
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
    "help.slack": (
        "*prdigest 使用方法*\n"
        "• `{cmd} owner/repo#123`：查看 PR 的卡片（仅你可见），可一键分享到频道\n"
        "• `{cmd} #123`：同上，用于本频道关注的仓库\n"
        "• `{cmd} <PR URL>`：同上，使用 PR 链接\n"
        "• `@prdigest <关于 owner/repo#123 的问题>`：在讨论串中回答\n"
        "• 在每日摘要的讨论串中回复，即可询问其中的 PR 或整份摘要\n"
        "• `{cmd} help`：显示本说明"
    ),
    # -- the App Home --------------------------------------------------------------------------
    "home.schedule": "每天 {time}（{zone}）发送，时间窗口 {window} · {language} · 上次摘要：{last}",
    "home.never": "尚无摘要",
    "home.run": "{day}：{prs} 个 PR，{messages} 条消息，{time} UTC 完成",
    "home.run_problems": "{run}，{n} 个问题",
    "home.run_problem_told": "{run}，{n} 个问题：{told}",
    "home.none_yours": "你所在的频道都没有配置每日摘要。",
    "home.none_configured": "还没有频道配置每日摘要：请在 `[[channels]]` 下添加。",
    "home.more": "… 另有 {n} 个频道",
    # -- what may not be posted where ------------------------------------------------------------
    "refusal.not_configured": "{repo} 是私有仓库，配置文件没有为 {channel} 配置它",
    "refusal.shared": "{repo} 是私有仓库，而 {channel} 已与其他组织共享",
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
    "cli.interrupted": "已中断",
    # -- answers a model gave but that could not be used (services/qa.py, core/templates.py) -----
    "reply.answer_unusable": "模型的回答无法使用，以下是这个 PR 的卡片：",
    "fact.files": "{n} 个文件",
}
