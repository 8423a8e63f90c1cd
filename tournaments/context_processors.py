from django.conf import settings

from .permissions import may_create_tournaments


def site(request):
    return {
        "tasks_in_process": settings.CELERY_TASK_ALWAYS_EAGER,
        # Lazy: partials rendered for htmx never ask, so they never pay for the query.
        "is_organiser": lambda: may_create_tournaments(request.user),
    }
