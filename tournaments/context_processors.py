from django.conf import settings

from .permissions import may_create_tournaments


def site(request):
    return {
        "tasks_in_process": settings.CELERY_TASK_ALWAYS_EAGER,
        "is_organiser": may_create_tournaments(request.user),
    }
