"""Each exercise's title names its label: "Exercise 6.2 (masks-step-size)", as the course guide, the
slides, the key and `check` name it.

sphinx-exercise titles an exercise "Exercise N" and, when the directive has an argument, adds it in
parentheses ("Exercise N (argument)"; its solution's title "Solution to Exercise N (argument)" follows).
The chapters give their exercises a `:label:` and no argument: this extension makes the label the
argument where there is none, so the book, the student edition and its PDF (the same directive) all
show it. A directive with its own argument keeps it."""
from __future__ import annotations

from sphinx_exercise.directive import ExerciseDirective, ExerciseStartDirective


def _labelled(directive_class):
    class Labelled(directive_class):
        def run(self):
            label = (self.options.get("label") or "").strip()
            if not self.arguments and label:
                self.arguments = [label]
            return super().run()

    Labelled.__name__ = f"Labelled{directive_class.__name__}"
    return Labelled


LabelledExercise = _labelled(ExerciseDirective)
LabelledExerciseStart = _labelled(ExerciseStartDirective)


def setup(app):
    app.setup_extension("sphinx_exercise")
    app.add_directive("exercise", LabelledExercise, override=True)
    app.add_directive("exercise-start", LabelledExerciseStart, override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
