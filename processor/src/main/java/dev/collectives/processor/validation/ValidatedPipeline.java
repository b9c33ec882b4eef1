package dev.collectives.processor.validation;

import dev.collectives.annotation.Registration;
import dev.collectives.processor.model.Condition;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.StepDecl;
import dev.collectives.processor.model.StepPlan;
import dev.collectives.processor.model.StepPlanner;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pipeline that passed validation: every attribute the writer reads is known, no validator reported an error, and
 * what the writer needs beyond the declarations is worked out once, here: the R7 and R13 conditions left for bind and
 * for each call, and each step's plan. Only {@link Validation} makes one; the writer takes nothing else.
 */
public final class ValidatedPipeline {
    private final PipelineModel model;
    private final Registration registration;
    private final List<Condition> conditions;
    private final Map<StepDecl, StepPlan> stepPlans;

    ValidatedPipeline(PipelineModel model, List<Condition> conditions) {
        this.model = model;
        this.registration = model.registration();
        this.conditions = List.copyOf(conditions);
        StepPlanner planner = new StepPlanner(model);
        Map<StepDecl, StepPlan> plans = new LinkedHashMap<>();
        model.steps().forEach(s -> plans.put(s, planner.plan(s)));
        this.stepPlans = Map.copyOf(plans);
    }

    /** The declarations as read, each attribute the writer reads known. */
    public PipelineModel model() {
        return model;
    }

    public Registration registration() {
        return registration;
    }

    /** The R7 and R13 conditions on sizes and offsets, none proved false: bind's first, then each step's. */
    public List<Condition> conditions() {
        return conditions;
    }

    /** How {@code step} is issued: its calls, fused and grouped where the plan proves it safe. */
    public StepPlan stepPlan(StepDecl step) {
        return stepPlans.get(step);
    }

    @Override
    public String toString() {
        return model.toString();
    }
}
