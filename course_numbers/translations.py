"""Translations of ``course_numbers.MESSAGES``: language -> {English message: translation}.

Written by ``grader release`` from the course's catalogues (``grader/language/locales``); edit the
catalogues, not this file.
"""

TRANSLATIONS = {
    'zh': {
        ('Your numbers (student id {student}); the graded quiz items u'
         'se these:'):
            ('你的数字（学号 {student}）；计分的小测题使用这些数'
             '字：'),
        ('No student id: this Jupyter has no login name that nbgrader '
         "would submit under, so these are the lesson's numbers. When "
         'your hand-in is graded, your own numbers are used.'):
            ('没有学号：这个 Jupyter 没有 nbgrader 提交'
             '时会用的登录名，所以这里是课程讲义的数字。你的作业评分时会使'
             '用你自己的数字。'),
        'the gradient p - y vanishes':
            '梯度 p - y 消失',
        ('the gap between the top scores grows with sigma while the st'
         'ep size stays fixed'):
            '最高几个分数之间的差距随 sigma 增大，而步长保持不变',
        'softmax overflows to nan':
            'softmax 溢出为 nan',
        'the values V get larger':
            '值 V 变大',
    },
}
