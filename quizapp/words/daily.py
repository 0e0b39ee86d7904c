"""Words of the daily-practice commands and views: `quizapp show`, `quizapp queue`, the editable copy."""

from quizapp.words.plural import Plural

TEXT: dict = {
    # quizapp show: section headings
    "show.meta": ("Topic {topic} · difficulty {difficulty}/5", "主题 {topic} · 难度 {difficulty}/5"),
    "show.points": ("Points", "考点"),
    "show.intent": ("Intent", "考察意图"),
    "show.answer": ("Answer", "标准答"),
    "show.template": ("30-second template", "答题模板"),
    "show.followups": ("Follow-ups", "追问"),
    "show.mistakes": ("Common mistakes", "常见错误"),
    "show.wrong": ("Wrong", "错误"),
    "show.right": ("Right", "正确"),
    "show.why": ("Why", "原因"),
    "show.errata": ("Errata", "勘误"),
    "show.claim": ("Claim", "原说法"),
    "show.correct": ("Correct", "更正"),
    "show.resume": ("Résumé tie-in", "简历呼应"),
    "show.reading": ("Reading", "延伸阅读"),
    "show.drills": ("Quick calculations", "速算题"),
    "show.expected": ("Answer: {value} (ask {ask}, tolerance {tolerance})", "答案：{value}（求 {ask}，容差 {tolerance}）"),
    "show.varies": ("Reviews draw a fresh {fields}.", "复习时会重新抽取 {fields}。"),
    "show.unknown": ("no question {qid!r} in the bank{hint}", "题库中没有题目 {qid!r}{hint}"),
    # quizapp queue
    "queue.day": ("Day {n} ({date})", "第 {n} 天（{date}）"),
    "queue.today": ("Today ({date})", "今天（{date}）"),
    "queue.counts": (
        "{learning} learning · {review} to review · {new} new",
        "学习中 {learning} · 待复习 {review} · 新卡 {new}",
    ),
    "queue.nothing": ("nothing to show", "没有要显示的卡片"),
    "queue.new": ("new", "新卡"),
    "queue.no_db": (
        "no review database yet at {path}: every card is new",
        "{path} 还没有复习数据库：所有卡片都是新卡",
    ),
    "queue.cards": (Plural("{n} card", "{n} cards"), "{n} 张卡片"),
    # the editable copy (`e` in review and preview)
    "edit.copied": (
        "Editing your copy of this question: {path} (the bundled file is untouched; your copy wins by its id)",
        "正在编辑这道题的个人副本：{path}（内置题库不变，同 id 时以你的副本为准）",
    ),
    "edit.your_copy": ("Editing your copy: {path}", "正在编辑你的副本：{path}"),
    "edit.in_place": ("Editing {path}", "正在编辑 {path}"),
    "edit.failed": ("Cannot make an editable copy: {reason}", "无法创建可编辑副本：{reason}"),
    "home.overridden": (
        Plural("{n} bundled question replaced by your copy", "{n} bundled questions replaced by your copies"),
        "{n} 道内置题目已由你的副本替换",
    ),
}
TEXT.update({
    # review footer and worked solution
    "bind.type-answer": ("Type", "作答"),
    "bind.tabs": ("Tabs", "切换标签"),
    "solution.asked": ("asked", "所求"),
    "solution.row.model_states": ("model states", "模型状态"),
    "solution.row.total": ("total", "合计"),
    "solution.row.cpu": ("CPU memory", "CPU 内存"),
    "debrief.unfinished": (
        "unfinished: {answered} of {total} answered",
        "未完成：已答 {answered}/{total}",
    ),
})
TEXT.update({
    "mock.score_over_answered": (
        "{score} over the {answered} answered of {total}",
        "{score}（只计已答的 {answered}/{total}）",
    ),
})
TEXT.update({
    "review.your_answer.keys": (
        "Your answer (optional; a or Tab to type here, ctrl+r reveals, Esc leaves):",
        "你的回答（可选；按 a 或 Tab 在此作答，ctrl+r 显示答案，Esc 离开）：",
    ),
})
TEXT.update({
    "cmd.type_answer": ("Type an answer (a)", "作答（a）"),
    "cmd.next_tab": ("Next tab of the answer (])", "答案的下一个标签（]）"),
})
TEXT.update({
    # counts left today, as the review header counts them (Store.day_counts: limits and burying applied)
    "home.learning": ("Learning", "学习中"),
    "home.review": ("Review", "复习"),
    "home.table.caption": (
        "Left today, limits applied (Learned: cards reviewed at least once)",
        "今天剩余，已计每日上限（已学：至少复习过一次的卡片）",
    ),
    "stats.today.left": (
        "Left today, limits applied: learning {learning} · review {review} · new {new}"
        " · done today: {new_done}/{new_limit} new, {reviews_done}/{review_limit} reviews",
        "今天剩余（已计每日上限）：学习中 {learning} · 复习 {review} · 新卡 {new}"
        " · 今天已完成：新卡 {new_done}/{new_limit}，复习 {reviews_done}/{review_limit}",
    ),
})
